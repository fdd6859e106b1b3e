import { Readable, Transform } from 'node:stream';
import { PROFILES_CONFIG, ProfilesConfig } from './profiles.config';
import { Inject, Injectable } from '@nestjs/common';
import { CsvError, parse } from 'csv-parse';
import { DomainError, FieldError, PayloadTooLargeError, ValidationError } from '../common/errors';
import { FIELD_ALIASES } from '../common/open-api-aliases';
import { checkInput } from '../common/validation.pipe';
import { MAX_BATCH_RECORDS, ProfileCsvImportedDto, ProfileRecordDto } from './dto/profile.dto';
import { ProfileRow, toProfileRow } from './profile-upsert';
import { ProfilesService } from './profiles.service';

export const CSV_REQUIRED_COLUMNS = ['messengerUserId', 'walletAddress', 'walletClassify'] as const;
export const CSV_OPTIONAL_COLUMNS = ['ipAddress', 'isPremium', 'isHighValue', 'walletHasBalance', 'language'] as const;
/** A column may be named by its Open API alias (docs/CONTRACT.md §14): `telegramUserId` for `messengerUserId`. */
const COLUMN_ALIASES: Partial<Record<string, string>> = { messengerUserId: FIELD_ALIASES.messengerUserId };
const KNOWN_COLUMNS = new Set<string>([
  ...CSV_REQUIRED_COLUMNS,
  ...CSV_OPTIONAL_COLUMNS,
  ...Object.values(COLUMN_ALIASES).filter((alias) => alias !== undefined),
]);
const BOOLEAN_COLUMNS = new Set(['isPremium', 'isHighValue', 'walletHasBalance']);
/** A refused file names at most this many field errors (the first, in file order); reading stops there. */
export const MAX_CSV_ERRORS = 100;
const MAX_CELL_BYTES = 64 * 1024;

/** A CSV cell as a record value: empty is absent (the stored value stays); booleans as true/false, 1/0, yes/no. */
function cellValue(column: string, cell: string): unknown {
  if (!BOOLEAN_COLUMNS.has(column)) return cell;
  if (/^(true|1|yes)$/i.test(cell)) return true;
  if (/^(false|0|no)$/i.test(cell)) return false;
  return cell;
}

/** Errors of one row, named `line.<line number>.<field>` (the header is line 1). */
function rowErrors(errors: FieldError[], line: number): FieldError[] {
  return errors.map(({ field, message }) => {
    const named = `line.${line}.${field}`;
    return { field: named, message: message.startsWith(field) ? named + message.slice(field.length) : `${named}: ${message}` };
  });
}

/**
 * CSV import of profile records: read as a stream and parsed by csv-parse, each row checked like a
 * record of endpoint 10, stored in batches of 5000 that stay invisible until the whole file proved good, then
 * queued together. A bad row, a bad header or a file over PROFILE_CSV_MAX_BYTES stores nothing.
 */
@Injectable()
export class ProfileCsvImporter {
  constructor(
    private readonly profiles: ProfilesService,
    @Inject(PROFILES_CONFIG) private readonly config: ProfilesConfig,
  ) {}

  /**
   * Imports the file into the profiles of the publisher `accountId` (see ProfilesService.ownerOf). A bad row does not
   * stop the reading: the rows after it are still checked (and no longer staged), so the 400 names every bad row, up
   * to MAX_CSV_ERRORS field errors, and the file can be fixed in one go.
   */
  async import(accountId: string, input: Readable): Promise<ProfileCsvImportedDto> {
    const staged: string[] = [];
    try {
      let total = 0;
      let chunk: ProfileRow[] = [];
      const errors: FieldError[] = [];
      const file = { columns: [] as string[] };
      try {
        for await (const { record: cells, line } of this.rows(input, file)) {
          const record = this.checkedRecord(file.columns, cells, line, errors);
          if (errors.length >= MAX_CSV_ERRORS) break;
          if (record === null || errors.length > 0) continue;
          chunk.push(toProfileRow(record));
          total += 1;
          if (chunk.length === MAX_BATCH_RECORDS) {
            staged.push(await this.profiles.stage(accountId, chunk));
            chunk = [];
          }
        }
      } catch (error) {
        // A file that stops parsing after bad rows: named with them.
        if (!(error instanceof ValidationError) || errors.length === 0) throw error;
        errors.push(...error.errors);
      }
      if (errors.length > 0) throw new ValidationError(errors.slice(0, MAX_CSV_ERRORS));
      if (chunk.length > 0) staged.push(await this.profiles.stage(accountId, chunk));
      if (total === 0) throw ValidationError.of('file', 'holds no records (only a header, or nothing)');
      await this.profiles.release(staged);
      return { batchIds: staged, total };
    } catch (error) {
      await this.profiles.dropStaged(staged);
      throw error;
    }
  }

  /** Rows after the header, each with its line number; checks the header on the way. */
  private async *rows(input: Readable, file: { columns: string[] }): AsyncGenerator<{ record: string[]; line: number }> {
    const limit = this.config.profileCsvMaxBytes;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) done(new PayloadTooLargeError(`the CSV file is over PROFILE_CSV_MAX_BYTES (${limit} bytes)`));
        else done(null, chunk);
      },
    });
    const parser = parse({ bom: true, trim: true, skip_empty_lines: true, info: true, max_record_size: MAX_CELL_BYTES });
    // Not stream.pipeline: it would destroy the request (and its socket) on a bad row, before the 400 is sent.
    input.on('error', (error) => parser.destroy(error));
    counter.on('error', (error) => parser.destroy(error));
    input.pipe(counter).pipe(parser);
    let header: string[] | null = null;
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        if (header === null) {
          header = this.checkHeader(record);
          file.columns = header;
          continue;
        }
        yield { record, line: info.lines };
      }
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof CsvError) {
        const line = (error as CsvError & { lines?: number }).lines;
        throw ValidationError.of(line ? `line.${line}` : 'file', `is not valid CSV: ${error.message}`);
      }
      throw error;
    } finally {
      // the rest of a refused file is read and dropped, so the connection stays usable
      input.unpipe(counter);
      input.resume();
    }
  }

  private checkHeader(cells: string[]): string[] {
    const missing = CSV_REQUIRED_COLUMNS.filter((column) => !cells.includes(column) && !cells.includes(COLUMN_ALIASES[column] ?? column));
    if (missing.length > 0) {
      throw ValidationError.of('header', `must name the columns ${CSV_REQUIRED_COLUMNS.join(',')} (missing: ${missing.join(', ')})`);
    }
    const repeated = cells.find((cell, i) => KNOWN_COLUMNS.has(cell) && cells.indexOf(cell) !== i);
    if (repeated) throw ValidationError.of('header', `names the column ${repeated} twice`);
    return cells;
  }

  /** The row's record, or null with its errors added to `errors`. */
  private checkedRecord(columns: string[], cells: string[], line: number, errors: FieldError[]): ProfileRecordDto | null {
    try {
      return this.toRecord(columns, cells, line);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
      return null;
    }
  }

  private toRecord(columns: string[], cells: string[], line: number): ProfileRecordDto {
    const value: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const cell = cells[i];
      if (KNOWN_COLUMNS.has(column) && cell !== undefined && cell !== '') value[column] = cellValue(column, cell);
    });
    try {
      return checkInput(ProfileRecordDto, value);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(rowErrors(error.errors, line));
      throw error;
    }
  }
}

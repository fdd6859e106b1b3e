import { DestinationStream } from 'pino';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the text line shows in its own place. */
const SHOWN_APART = new Set(['level', 'time', 'service', 'pid', 'hostname', 'msg', 'context', 'err']);

let clockSecond = -1;
let clockText = '';

/** `HH:MM:SS` in UTC, as every log line's time (the JSON lines carry the full timestamp); made once a second. */
export function clockTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== clockSecond) {
    clockSecond = second;
    clockText = new Date(ms).toISOString().slice(11, 19);
  }
  return clockText;
}

/**
 * LOG_FORMAT=text: pino's JSON lines rewritten for a person, `12:00:01 WARN  [Context] message key=value`, an error's
 * stack below it. Only the rare lines are parsed here: the request lines, one per request, are written as text
 * directly (accessLogWriter).
 */
export class TextLines implements DestinationStream {
  constructor(private readonly out: DestinationStream) {}

  write(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.out.write(line);
      return;
    }
    this.out.write(formatTextLine(entry));
  }

  writeText(text: string): void {
    this.out.write(text);
  }

  flush(callback?: (error?: Error) => void): void {
    const out = this.out as DestinationStream & { flush?: (callback?: (error?: Error) => void) => void };
    if (out.flush) out.flush(callback);
    else callback?.();
  }
}

/** One log entry as a text line (see TextLines). */
export function formatTextLine(entry: Record<string, unknown>): string {
  const level = (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5);
  const context = typeof entry.context === 'string' ? `[${entry.context}] ` : '';
  const fields = Object.entries(entry)
    .filter(([key, value]) => !SHOWN_APART.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const message = [entry.msg, ...fields].filter((part) => part !== undefined && part !== '').join('  ');
  const detail = err ? `\n${indent(err.stack ?? err.message ?? JSON.stringify(err))}` : '';
  return `${clockTime(typeof entry.time === 'number' ? entry.time : Date.now())} ${level} ${context}${message}${detail}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

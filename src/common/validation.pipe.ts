import { Readable } from 'node:stream';
import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationError as ClassValidatorError, validateSync } from 'class-validator';
import { FieldError, UnsupportedMediaTypeError, ValidationError } from './errors';
import { MalformedJsonBody } from './json-body';
import { namedAsSent, withCanonicalNames } from './open-api-aliases';

const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object];

/**
 * A DTO of a hot route may offer a quick check that recognises the common, plainly valid input and builds the
 * instance without class-validator's reflection (several times faster). It may only accept what the decorators
 * accept; anything it does not recognise goes through class-validator, which alone words the errors. Each such
 * check has a spec that compares it with class-validator on generated inputs.
 */
export interface FastAccepting<T> {
  acceptFast(value: unknown): T | null;
}

function hasFastAccept(metatype: unknown): metatype is FastAccepting<unknown> {
  return typeof (metatype as Partial<FastAccepting<unknown>>).acceptFast === 'function';
}

/**
 * Validates bodies and queries against their DTO classes. Unknown fields are dropped (never stored),
 * and every failure is reported with the dotted path of its field.
 */
@Injectable()
export class RequestValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const { metatype, type } = metadata;
    if (!metatype || PRIMITIVES.includes(metatype) || (type !== 'body' && type !== 'query')) return value;

    if (value instanceof MalformedJsonBody) throw ValidationError.of('body', 'is not valid JSON');
    // A text/csv body arrives as the raw request stream; walking it as a DTO would reach native handles and abort the process.
    if (type === 'body' && value instanceof Readable) throw new UnsupportedMediaTypeError('unsupported content type: send application/json');
    if (type === 'body' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw ValidationError.of('body', 'must be a JSON object');
    }
    return checkInput(metatype, value);
  }
}

/**
 * An input (body, query, a CSV row) as its DTO: the Open API aliases rewritten to the canonical names
 * (docs/CONTRACT.md §14), then the quick check or the decorators; errors name the fields as the client sent them.
 */
export function checkInput<T>(metatype: new () => T, value: unknown): T {
  const input = withCanonicalNames(metatype, value);
  if (hasFastAccept(metatype)) {
    const accepted = metatype.acceptFast(input.value);
    if (accepted !== null) return accepted as T;
  }
  try {
    return validateWithDecorators(metatype, input.value) as T;
  } catch (error) {
    if (error instanceof ValidationError) throw namedAsSent(error, input.renamed);
    throw error;
  }
}

/**
 * For the fast lanes: the DTO when the input is plainly valid (aliases rewritten as the pipe does), else null and
 * the request goes on to Nest, whose pipe words any error (an alias conflicting with its canonical field included).
 */
export function acceptFastWithAliases<T>(metatype: FastAccepting<T> & (new () => T), value: unknown): T | null {
  let canonical: unknown;
  try {
    canonical = withCanonicalNames(metatype, value).value;
  } catch (error) {
    if (error instanceof ValidationError) return null;
    throw error;
  }
  return metatype.acceptFast(canonical);
}

/** The authoritative check: class-transformer builds the DTO, class-validator checks every decorator. */
export function validateWithDecorators(metatype: new () => unknown, value: unknown): unknown {
  let instance: unknown;
  let errors: ClassValidatorError[];
  try {
    instance = plainToInstance(metatype, value ?? {}, { enableImplicitConversion: false });
    errors = validateSync(instance as object, {
      whitelist: true,
      forbidNonWhitelisted: false,
      forbidUnknownValues: false,
      validationError: { target: false, value: true },
    });
  } catch (error) {
    // class-transformer recurses once per nesting level: a body nested thousands deep overflows the stack.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw ValidationError.of('body', 'is nested too deeply');
    throw error;
  }
  if (errors.length > 0) throw new ValidationError(flattenErrors(errors));
  return instance;
}

/** When a value breaks several rules, the type check speaks first: "must be a number" before "must be at most …". */
const FIRST_CONSTRAINTS = ['isDefined', 'isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject', 'isIn', 'isNotEmpty'];
const rank = (constraint: string) => {
  const index = FIRST_CONSTRAINTS.indexOf(constraint);
  return index === -1 ? FIRST_CONSTRAINTS.length : index;
};

export function flattenErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  const result: FieldError[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {}).sort(([a], [b]) => rank(a) - rank(b));
    // "nested property x must be either object or array" repeats what the type check already says
    const meaningful = constraints.length > 1 ? constraints.filter(([key]) => key !== 'nestedValidation') : constraints;
    if (meaningful.length > 0) {
      const missing = error.value === undefined || error.value === null;
      const message = missing ? `${path} is required` : withPath(meaningful[0][1], error.property, path);
      result.push({ field: path, message });
    }
    if (error.children?.length) result.push(...flattenErrors(error.children, path));
  }
  return result;
}

function withPath(text: string, property: string, path: string): string {
  if (text.startsWith(`${property} `)) return `${path}${text.slice(property.length)}`;
  // class-validator's words for an array element that is not an object: "each value in nested property …"
  if (text.startsWith('each value in nested property ')) return `${path} must be an object`;
  if (text.startsWith('each value in ')) return `each value in ${path}${text.slice(`each value in ${property}`.length)}`;
  if (text.startsWith('nested property ')) return `${path} must be an object`;
  return `${path}: ${text}`;
}

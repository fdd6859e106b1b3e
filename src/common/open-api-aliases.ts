import { ApiPropertyOptional } from '@nestjs/swagger';
import type { MetadataStorage as TransformMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidateBy, ValidationTypes } from 'class-validator';
import { FieldError, ValidationError } from './errors';
import { withFields } from './with-fields';

/**
 * TON AI's Open API names for the interface's fields and values (docs/CONTRACT.md §14): its clients send them, so
 * every request may use them in place of the canonical names; answers always carry the canonical names. The one
 * table of aliases: a DTO property opts in with @OpenApiAlias(), and the validation pipe (and the fast lanes, through
 * it) rewrites the aliases before anything else reads the input.
 */
export const FIELD_ALIASES = {
  messengerUserId: 'telegramUserId',
  messengerPremium: 'telegramPremium',
  userLinkedChainWallet: 'userLinkedTonWallet',
} as const satisfies Record<string, string>;

/** Alias values of a field: alias -> canonical value. */
export const VALUE_ALIASES = {
  type: { telegram: 'messenger' },
  walletClassify: { ton: 'primary' },
} as const satisfies Record<string, Record<string, string>>;

type FieldWithAlias = keyof typeof FIELD_ALIASES;
type FieldWithAliasValues = keyof typeof VALUE_ALIASES;

const ALIAS_RULE = 'openApiAlias';
/** @nestjs/swagger's metadata key of a property's schema (its SWAGGER_PROPERTY_METADATA; the package does not export it). */
export const SWAGGER_PROPERTY_METADATA = 'swagger/apiModelProperties';
const SOURCE = 'TON AI Open API';

const isFieldWithAlias = (name: string): name is FieldWithAlias => Object.hasOwn(FIELD_ALIASES, name);
const isFieldWithAliasValues = (name: string): name is FieldWithAliasValues => Object.hasOwn(VALUE_ALIASES, name);

/**
 * The property accepts its alias from the table above (a field alias, alias values, or both). Recorded as a
 * class-validator rule that always passes, so that the mapped types (PickType, PartialType) carry it like the
 * property's other rules. Documents the alias in Swagger: a field alias as a deprecated property of its own, alias
 * values in the property's enum and description (so put it above @ApiProperty, which it amends).
 */
export function OpenApiAlias(): PropertyDecorator {
  return (target, key) => {
    const property = String(key);
    if (!isFieldWithAlias(property) && !isFieldWithAliasValues(property)) {
      throw new Error(`@OpenApiAlias() on ${target.constructor.name}.${property}: no alias of ${property} in the alias table`);
    }
    ValidateBy({ name: ALIAS_RULE, validator: { validate: () => true } })(target, key);
    if (isFieldWithAlias(property)) documentFieldAlias(target, property);
    if (isFieldWithAliasValues(property)) documentValueAliases(target, property);
  };
}

function documentFieldAlias(target: object, property: FieldWithAlias): void {
  const designType = Reflect.getMetadata('design:type', target, property) as (() => unknown) | undefined;
  ApiPropertyOptional({
    type: designType,
    deprecated: true,
    description: `Alias of \`${property}\` (${SOURCE}): send either; both with different values is a 400. Answers use \`${property}\`.`,
  })(target, FIELD_ALIASES[property]);
}

function documentValueAliases(target: object, property: FieldWithAliasValues): void {
  const existing = Reflect.getMetadata(SWAGGER_PROPERTY_METADATA, target, property) as { enum?: unknown[]; description?: string } | undefined;
  if (!existing) throw new Error(`@OpenApiAlias() on ${target.constructor.name}.${property} must stand above its @ApiProperty`);
  const aliases = Object.entries(VALUE_ALIASES[property]);
  const words = aliases.map(([alias, canonical]) => `\`${alias}\` is an alias of \`${canonical}\``).join(', ');
  const documented = withFields(existing, {
    description: `${existing.description ? `${existing.description}. ` : ''}${words} (${SOURCE}); answers use the canonical value.`,
  });
  if (existing.enum) documented.enum = [...existing.enum, ...aliases.map(([alias]) => alias)];
  Reflect.defineMetadata(SWAGGER_PROPERTY_METADATA, documented, target, property);
}

interface AliasPlan {
  fields: { canonical: string; alias: string }[];
  values: { property: string; aliases: Readonly<Record<string, string>> }[];
  nested: { property: string; plan: AliasPlan }[];
}

// class-transformer keeps the nested DTO types (@Type) in this store; @nestjs/mapped-types reads it the same way.
const { defaultMetadataStorage: transformMetadata } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformMetadataStorage };

/** A DTO class (what class-validator and class-transformer key their metadata by). */
type DtoClass = abstract new (...args: never[]) => unknown;

const plans = new Map<DtoClass, AliasPlan | null>();

/** Where a DTO (and the DTOs nested in it) accept aliases; null when nowhere. Worked out once per class. */
function planOf(type: DtoClass, visiting = new Set<DtoClass>()): AliasPlan | null {
  const known = plans.get(type);
  if (known !== undefined) return known;
  if (visiting.has(type)) return null;
  visiting.add(type);
  const plan: AliasPlan = { fields: [], values: [], nested: [] };
  const seen = new Set<string>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(type, '', true, false)) {
    const property = rule.propertyName;
    if (rule.name === ALIAS_RULE && !seen.has(`alias:${property}`)) {
      seen.add(`alias:${property}`);
      if (isFieldWithAlias(property)) plan.fields.push({ canonical: property, alias: FIELD_ALIASES[property] });
      if (isFieldWithAliasValues(property)) plan.values.push({ property, aliases: VALUE_ALIASES[property] });
    }
    if (rule.type === ValidationTypes.NESTED_VALIDATION && !seen.has(`nested:${property}`)) {
      seen.add(`nested:${property}`);
      const nestedType = transformMetadata.findTypeMetadata(type, property)?.typeFunction() as DtoClass | undefined;
      const nestedPlan = nestedType ? planOf(nestedType, visiting) : null;
      if (nestedPlan) plan.nested.push({ property, plan: nestedPlan });
    }
  }
  const result = plan.fields.length + plan.values.length + plan.nested.length > 0 ? plan : null;
  plans.set(type, result);
  return result;
}

/** The input with the canonical names, and which canonical paths came from an alias (to name errors as sent). */
export interface CanonicalInput {
  value: unknown;
  /** canonical path -> the alias path the client sent; empty when no field alias was used */
  renamed: Map<string, string>;
}

/**
 * Rewrites the aliases of the table in an input of this DTO class (a body or a query, nested DTOs and arrays of them
 * included): alias values become canonical ones, alias fields move to their canonical name. An alias sent beside its
 * canonical field with another value is a 400 naming the alias. The input itself is never changed (copies where
 * needed); an input without aliases comes back as it is.
 */
export function withCanonicalNames(type: DtoClass, value: unknown): CanonicalInput {
  const plan = planOf(type);
  const renamed = new Map<string, string>();
  return { value: plan ? rewrite(plan, value, '', renamed) : value, renamed };
}

function rewrite(plan: AliasPlan, value: unknown, path: string, renamed: Map<string, string>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const input = value as Record<string, unknown>;
  let output = input;
  const set = (key: string, next: unknown) => {
    if (output === input) output = { ...input };
    if (next === undefined) delete output[key];
    else output[key] = next;
  };

  for (const { property, aliases } of plan.values) {
    const given = input[property];
    if (typeof given === 'string' && Object.hasOwn(aliases, given)) set(property, aliases[given]);
  }
  for (const { canonical, alias } of plan.fields) {
    if (!Object.hasOwn(input, alias) || input[alias] === undefined) continue;
    const aliasValue = input[alias];
    set(alias, undefined);
    if (input[canonical] === undefined) {
      set(canonical, aliasValue);
      renamed.set(path + canonical, path + alias);
    } else if (input[canonical] !== aliasValue) {
      throw ValidationError.of(path + alias, `is an alias of ${path + canonical}: send one of them, or both with the same value`);
    }
  }
  for (const { property, plan: inner } of plan.nested) {
    const given = input[property];
    if (Array.isArray(given)) {
      let items = given;
      for (let i = 0; i < given.length; i++) {
        const item = rewrite(inner, given[i], `${path}${property}.${i}.`, renamed);
        if (item === given[i]) continue;
        if (items === given) items = [...given];
        items[i] = item;
      }
      if (items !== given) set(property, items);
    } else {
      const nested = rewrite(inner, given, `${path}${property}.`, renamed);
      if (nested !== given) set(property, nested);
    }
  }
  return output;
}

/** The validation errors of a rewritten input, naming the fields as the client sent them. */
export function namedAsSent(error: ValidationError, renamed: Map<string, string>): ValidationError {
  if (renamed.size === 0) return error;
  const rename = (text: string): string => {
    for (const [canonical, alias] of renamed) {
      if (text === canonical || text.startsWith(`${canonical}.`) || text.startsWith(`${canonical} `) || text.startsWith(`${canonical}:`)) {
        return alias + text.slice(canonical.length);
      }
    }
    return text;
  };
  return new ValidationError(error.errors.map(({ field, message }): FieldError => ({ field: rename(field), message: rename(message) })));
}

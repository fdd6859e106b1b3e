import { ValidationError } from '../common/errors';

/** A click (ad or exchange entry) that no impression served to its user binds to. */
export function noImpression(): ValidationError {
  return new ValidationError([{ field: 'eventData', message: 'no matching impression' }]);
}

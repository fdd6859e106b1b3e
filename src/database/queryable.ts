import type { EntityManager } from 'typeorm';

/** Anything that runs SQL: an EntityManager, a query runner, or a batch of statements gathered for one round trip. */
export type Queryable = Pick<EntityManager, 'query'>;

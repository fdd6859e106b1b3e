import { Init1763848800000 } from './1763848800000-Init';
import { Serving1763852400000 } from './1763852400000-Serving';

/** Every mysql migration in order; listed explicitly so the app, the CLI and the tests load the same set. */
export const MYSQL_MIGRATIONS = [Init1763848800000, Serving1763852400000];

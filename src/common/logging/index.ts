export { accessLogWriter } from './access-log';
export { lazyChildLogger } from './lazy-child-logger';
export { PinoNestLogger } from './nest-logger';
export { createPinoLogger } from './pino-logger';
export { formatTextLine, TextLines } from './text-lines';

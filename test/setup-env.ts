// Runs before every test file (jest setupFiles): the environment the application reads at import time.
import { Logger, type LogLevel } from '@nestjs/common';

process.env.TZ = 'UTC';
process.env.APP_ENV ??= 'test';

/**
 * Outside an application (unit specs), Nest's loggers write to the console: the tests that fail on purpose (a refused
 * connection, a job that fails for good) would print red lines from a passing run. They write at TEST_LOG_LEVEL and
 * above (silent by default; e.g. TEST_LOG_LEVEL=debug to see them). An application started by a test logs to its own
 * buffer (test/support/test-app.ts), where tests read it.
 */
const NEST_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const wanted = { fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6 }[process.env.TEST_LOG_LEVEL ?? 'silent'] ?? 0;
Logger.overrideLogger(NEST_LEVELS.slice(0, wanted));

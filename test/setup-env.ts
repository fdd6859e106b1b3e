// Runs before every test file (jest setupFiles): the environment the application reads at import time.
process.env.TZ = 'UTC';
process.env.APP_ENV ??= 'test';

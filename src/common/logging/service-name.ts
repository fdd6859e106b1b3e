/** The `service` field of every log line. */
export const SERVICE_NAME = 'adnet';

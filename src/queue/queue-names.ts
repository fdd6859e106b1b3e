/**
 * Every queue of the service. BullMQ queues are registered from this list at start (the MySQL + Redis profile),
 * and bull-board shows them; a feature adds its queue here and marks its processor with @JobProcessorFor.
 */
export const QUEUE_NAMES = {
  profileBatch: 'profile-batch',
  verification: 'verification',
  rewardCallback: 'reward-callback',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

export const ALL_QUEUES: QueueName[] = Object.values(QUEUE_NAMES);

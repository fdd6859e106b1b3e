export { CampaignDeliveryTest } from './CampaignDeliveryTest';
export { DeliveryTestPage } from './DeliveryTestPage';
export { TestDeliveryButton } from './TestDeliveryButton';

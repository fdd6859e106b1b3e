import {
  BooleanInput,
  NumberInput,
  SelectArrayInput,
  SelectInput,
  SimpleForm,
  TextInput,
  maxValue,
  minValue,
  number,
  required,
  type SimpleFormProps,
} from 'react-admin';
import { FormRow as Row, FormSection as Section } from '../common/formParts';
import { FormToolbar } from '../common/FormToolbar';
import { CATEGORIES } from '../campaigns/choices';
import { domainsText } from './controls';
import { SIGNED_VIEWER_HELP } from './SignedViewerSwitch';

const FORMATS = [
  { id: 'banner', name: 'Banner' },
  { id: 'rewarded', name: 'Rewarded' },
];

/** The fields of an ad block (ad/block/create and ad/block/update). */
export const AdBlockForm = (props: Omit<SimpleFormProps, 'children'>) => (
  <SimpleForm toolbar={<FormToolbar />} {...props}>
    <TextInput source="name" validate={required()} helperText="Where the ads appear, e.g. Home screen banner" fullWidth />
    <BooleanInput source="requireSignedViewer" label="Require signed viewer" helperText={SIGNED_VIEWER_HELP} />
    <Section title="What this block serves">
      <Row>
        <NumberInput source="floorCpm" label="Floor CPM (USDT)" helperText="Optional: CPM campaigns bidding less per 1000 impressions are not served here" />
        <NumberInput source="floorCpc" label="Floor CPC (USDT)" helperText="Optional: CPC campaigns bidding less per click are not served here" />
      </Row>
      <SelectArrayInput
        source="blockedCategories"
        label="Blocked categories"
        choices={CATEGORIES}
        helperText="Campaigns of these categories are not served here"
      />
      <TextInput
        source="blockedDomains"
        label="Blocked domains"
        multiline
        minRows={2}
        format={domainsText}
        helperText="Landing hosts not served here, one per line (example.com also blocks shop.example.com)"
        fullWidth
      />
    </Section>
    <RewardFields />
  </SimpleForm>
);

/** Rewarded-ad settings (docs/REWARDED_ADS.md). */
const RewardFields = () => (
  <>
    <SelectInput source="format" choices={FORMATS} helperText="Rewarded: a completed view earns the user a reward through the reward URL" />
    <TextInput source="rewardUrl" label="Reward URL" helperText="Your server's endpoint for the signed reward callback; empty: none" fullWidth />
    <NumberInput
      source="minViewMs"
      label="Minimum view (ms)"
      validate={[number(), minValue(5000), maxValue(60000)]}
      helperText="A completion counts only this long after the ad was served (5000 to 60000)"
    />
    <NumberInput
      source="dailyRewardCap"
      label="Daily reward cap"
      validate={[number(), minValue(1), maxValue(10000)]}
      helperText="Most rewards per user per UTC day"
    />
  </>
);

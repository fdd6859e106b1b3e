import { BooleanInput, NumberInput, SelectInput, SimpleForm, TextInput, maxValue, minValue, number, required, type SimpleFormProps } from 'react-admin';
import { FormToolbar } from '../common/FormToolbar';
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

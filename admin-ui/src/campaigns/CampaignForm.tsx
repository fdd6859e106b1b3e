import { Box } from '@mui/material';
import {
  BooleanInput,
  DateTimeInput,
  NumberInput,
  RadioButtonGroupInput,
  SelectInput,
  SimpleForm,
  TextInput,
  required,
  type SimpleFormProps,
} from 'react-admin';
import { FormRow as Row, FormSection as Section, ImageUrlInput, RegionLanguageInputs } from '../common/formParts';
import { FormToolbar } from '../common/FormToolbar';
import { localInputToMs, msToLocalInput, userTimeZone } from '../time';
import { ACTION_TYPES, BILLING_TYPES, CATEGORIES, PACINGS, PLATFORMS, TARGETING_FLAGS } from './choices';
import { OPTIMIZATION_EVENTS } from './funnel';
import { FormForecast } from './ForecastPanel';

const timeHelp = `In your timezone (${userTimeZone()})`;

/** Every field of the campaign interface. Checks stay with the API: its messages appear under each field. */
export const CampaignForm = (props: Omit<SimpleFormProps, 'children'>) => (
  <SimpleForm toolbar={<FormToolbar />} {...props}>
    <TextInput source="name" validate={required()} fullWidth />
    <SelectInput source="category" label="Category" choices={CATEGORIES} helperText="What it advertises: publishers may block categories" />

    <Section title="Targeting">
      <RegionLanguageInputs />
      <Row>
        <SelectInput source="targeting.platform" label="Platform" choices={PLATFORMS} />
      </Row>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 3 }}>
        {TARGETING_FLAGS.map((flag) => (
          <BooleanInput key={flag.source} source={`targeting.${flag.source}`} label={flag.label} helperText={false} />
        ))}
      </Box>
    </Section>

    <Section title="Budget (USDT)">
      <Row>
        <NumberInput
          source="budget.amount"
          label="Daily budget"
          validate={required()}
          step={1}
          helperText="At most this much per day of your account's time zone"
        />
        <NumberInput source="budget.total" label="Total budget" validate={required()} step={1} />
        <SelectInput source="budget.strategy" label="Strategy" choices={[{ id: 'daily', name: 'daily' }]} validate={required()} />
      </Row>
      <Row>
        <DateTimeInput source="budget.startTime" label="Start" validate={required()} format={msToLocalInput} parse={localInputToMs} helperText={timeHelp} />
        <DateTimeInput source="budget.endTime" label="End" validate={required()} format={msToLocalInput} parse={localInputToMs} helperText={timeHelp} />
      </Row>
      <RadioButtonGroupInput
        source="budget.pacing"
        label="Pacing"
        choices={PACINGS}
        helperText="Even spreads the daily budget over the day, so evening users see the ad too; ASAP spends it as fast as traffic allows"
      />
    </Section>

    <Section title="Bidding">
      <Row>
        <SelectInput source="bidding.billingType" label="Billing type" choices={BILLING_TYPES} validate={required()} />
        <NumberInput source="bidding.costPer" label="Bid (USDT)" helperText="Per 1000 impressions (CPM) or per click (CPC)" validate={required()} />
      </Row>
      <Row>
        <SelectInput
          source="optimizationEvent"
          label="Optimization event"
          choices={OPTIMIZATION_EVENTS}
          helperText="What the campaign's conversions and CR count: conversions, or a custom event your app reports"
          validate={required()}
        />
      </Row>
    </Section>

    <Section title="Creative">
      <Row>
        <SelectInput source="ad.adFormat" label="Format" choices={[{ id: 'image', name: 'image' }]} validate={required()} />
        <SelectInput source="ad.destination.actionType" label="Action" choices={ACTION_TYPES} validate={required()} />
      </Row>
      <TextInput source="ad.destination.url" label="Destination URL" validate={required()} fullWidth />
      <Row>
        <ImageUrlInput source="ad.popupImage" label="Image URL" size={320} />
        <ImageUrlInput source="ad.icon" label="Icon URL" size={96} />
      </Row>
      <TextInput source="ad.text" label="Text" validate={required()} multiline minRows={2} fullWidth />
      <Row>
        <TextInput source="ad.brandName" label="Brand name" validate={required()} />
        <TextInput source="ad.buttonText" label="Button text" validate={required()} />
      </Row>
    </Section>

    <Section title="Frequency cap">
      <Row>
        <NumberInput
          source="frequencyCap.impressions"
          label="Impressions per user"
          helperText="Optional, 1 to 1000: most impressions one user is served within the window (empty: no cap)"
          step={1}
          min={1}
          max={1000}
        />
        <NumberInput source="frequencyCap.hours" label="Window (hours)" helperText="1 to 720, rolling" step={1} min={1} max={720} />
      </Row>
    </Section>

    <Section title="Verification">
      <TextInput
        source="verificationUrl"
        label="Verification URL"
        helperText="Optional: called with ?messenger_id=… after each counted click, signed with your webhook secret (My account)"
        fullWidth
      />
    </Section>

    <Section title="Forecast">
      <FormForecast />
    </Section>
  </SimpleForm>
);

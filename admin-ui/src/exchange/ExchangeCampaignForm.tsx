import { Typography } from '@mui/material';
import { SelectInput, SimpleForm, TextInput, required, type SimpleFormProps } from 'react-admin';
import { ACTION_TYPES } from '../campaigns/choices';
import { FormRow, ImageUrlInput, RegionLanguageInputs } from '../common/formParts';
import { FormToolbar } from '../common/FormToolbar';

export const ExchangeCampaignForm = (props: Omit<SimpleFormProps, 'children'>) => (
  <SimpleForm toolbar={<FormToolbar />} {...props}>
    <TextInput source="name" validate={required()} fullWidth />
    <FormRow>
      <ImageUrlInput source="icon" label="Icon URL" size={96} />
      <ImageUrlInput source="image" label="Image URL" size={320} optional helperText="Optional: entries without one carry no image" />
    </FormRow>
    <TextInput source="text" validate={required()} multiline minRows={2} fullWidth />
    <FormRow>
      <SelectInput source="destination.actionType" label="Action" choices={ACTION_TYPES} validate={required()} />
      <TextInput source="destination.url" label="Destination URL" validate={required()} />
    </FormRow>
    <Typography variant="h6" sx={{ mt: 2 }}>
      Targeting (optional)
    </Typography>
    <RegionLanguageInputs />
  </SimpleForm>
);

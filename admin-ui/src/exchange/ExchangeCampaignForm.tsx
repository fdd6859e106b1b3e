import { Box, Typography } from '@mui/material';
import { useWatch } from 'react-hook-form';
import { SelectInput, SimpleForm, TextArrayInput, TextInput, required, type SimpleFormProps } from 'react-admin';
import { ACTION_TYPES } from '../campaigns/choices';

const Preview = ({ source, size }: { source: string; size: number }) => {
  const url = useWatch({ name: source });
  if (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url.trim())) return null;
  return (
    <Box
      component="img"
      src={url}
      alt={`${source} preview`}
      data-testid={`preview-${source}`}
      sx={{ maxWidth: size, maxHeight: size, borderRadius: 1, border: 1, borderColor: 'divider' }}
    />
  );
};

const Row = ({ children }: { children: React.ReactNode }) => (
  <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, width: '100%', '& > *': { flex: '1 1 220px' } }}>{children}</Box>
);

const upper = (values: unknown) => (Array.isArray(values) ? values.map((value) => String(value).trim().toUpperCase()) : values);
const lower = (values: unknown) => (Array.isArray(values) ? values.map((value) => String(value).trim().toLowerCase()) : values);

export const ExchangeCampaignForm = (props: Omit<SimpleFormProps, 'children'>) => (
  <SimpleForm {...props}>
    <TextInput source="name" validate={required()} fullWidth />
    <Row>
      <Box>
        <TextInput source="icon" label="Icon URL" validate={required()} fullWidth />
        <Preview source="icon" size={96} />
      </Box>
      <Box>
        <TextInput source="image" label="Image URL" helperText="Optional: entries without one carry no image" fullWidth />
        <Preview source="image" size={320} />
      </Box>
    </Row>
    <TextInput source="text" validate={required()} multiline minRows={2} fullWidth />
    <Row>
      <SelectInput source="destination.actionType" label="Action" choices={ACTION_TYPES} validate={required()} />
      <TextInput source="destination.url" label="Destination URL" validate={required()} />
    </Row>
    <Typography variant="h6" sx={{ mt: 2 }}>
      Targeting (optional)
    </Typography>
    <Row>
      <TextArrayInput source="targeting.includedRegions" label="Included regions" helperText="ISO 3166-1 alpha-2 (empty: all)" parse={upper} />
      <TextArrayInput source="targeting.excludedRegions" label="Excluded regions" helperText="ISO 3166-1 alpha-2" parse={upper} />
    </Row>
    <Row>
      <TextArrayInput source="targeting.includedLanguages" label="Included languages" helperText="ISO 639-1 (empty: all)" parse={lower} />
      <TextArrayInput source="targeting.excludedLanguages" label="Excluded languages" helperText="ISO 639-1" parse={lower} />
    </Row>
  </SimpleForm>
);

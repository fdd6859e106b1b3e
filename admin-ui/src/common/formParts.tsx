import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { TextArrayInput, TextInput, required } from 'react-admin';
import { useWatch } from 'react-hook-form';

/** A titled part of a long form. */
export const FormSection = ({ title, children }: { title: string; children: ReactNode }) => (
  <Box sx={{ width: '100%', mt: 2 }}>
    <Typography variant="h6" gutterBottom>
      {title}
    </Typography>
    {children}
  </Box>
);

/** Inputs side by side, wrapping on narrow screens. */
export const FormRow = ({ children }: { children: ReactNode }) => (
  <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, width: '100%', '& > *': { flex: '1 1 220px' } }}>{children}</Box>
);

const isHttpUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\/\S+$/i.test(value.trim());

/** An image URL input with the image it points at below, as the user will see it. */
export const ImageUrlInput = ({
  source,
  label,
  size,
  optional,
  helperText,
}: {
  source: string;
  label: string;
  size: number;
  optional?: boolean;
  helperText?: string;
}) => {
  const url = useWatch({ name: source });
  return (
    <Box>
      <TextInput source={source} label={label} validate={optional ? undefined : required()} helperText={helperText} fullWidth />
      {isHttpUrl(url) ? (
        <Box
          component="img"
          src={url}
          alt={`${label} preview`}
          data-testid={`preview-${source}`}
          sx={{ maxWidth: size, maxHeight: size, border: 1, borderColor: 'divider', borderRadius: 1, objectFit: 'contain' }}
        />
      ) : null}
    </Box>
  );
};

const codesToUpper = (values: unknown) => (Array.isArray(values) ? values.map((value) => String(value).trim().toUpperCase()) : values);
const codesToLower = (values: unknown) => (Array.isArray(values) ? values.map((value) => String(value).trim().toLowerCase()) : values);

/** Region and language targeting (campaigns and exchange campaigns): ISO codes typed in any case, stored as the API keeps them. */
export const RegionLanguageInputs = () => (
  <>
    <FormRow>
      <TextArrayInput source="targeting.includedRegions" label="Included regions" helperText="ISO 3166-1 alpha-2, e.g. US (empty: all)" parse={codesToUpper} />
      <TextArrayInput source="targeting.excludedRegions" label="Excluded regions" helperText="ISO 3166-1 alpha-2" parse={codesToUpper} />
    </FormRow>
    <FormRow>
      <TextArrayInput source="targeting.includedLanguages" label="Included languages" helperText="ISO 639-1, e.g. en (empty: all)" parse={codesToLower} />
      <TextArrayInput source="targeting.excludedLanguages" label="Excluded languages" helperText="ISO 639-1" parse={codesToLower} />
    </FormRow>
  </>
);

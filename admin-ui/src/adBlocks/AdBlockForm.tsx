import { BooleanInput, SimpleForm, TextInput, required, type SimpleFormProps } from 'react-admin';
import { FormToolbar } from '../common/FormToolbar';
import { SIGNED_VIEWER_HELP } from './SignedViewerSwitch';

/** The fields of an ad block (ad/block/create and ad/block/update). */
export const AdBlockForm = (props: Omit<SimpleFormProps, 'children'>) => (
  <SimpleForm toolbar={<FormToolbar />} {...props}>
    <TextInput source="name" validate={required()} helperText="Where the ads appear, e.g. Home screen banner" fullWidth />
    <BooleanInput source="requireSignedViewer" label="Require signed viewer" helperText={SIGNED_VIEWER_HELP} />
  </SimpleForm>
);

import { BooleanInput, Create, SimpleForm, TextInput, required } from 'react-admin';
import { SIGNED_VIEWER_HELP } from './SignedViewerSwitch';

export const AdBlockCreate = () => (
  <Create redirect="show">
    <SimpleForm>
      <TextInput source="name" validate={required()} helperText="Where the ads appear, e.g. Home screen banner" fullWidth />
      <BooleanInput source="requireSignedViewer" label="Require signed viewer" defaultValue={false} helperText={SIGNED_VIEWER_HELP} />
    </SimpleForm>
  </Create>
);

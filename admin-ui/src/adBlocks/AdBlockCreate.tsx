import { Create, SimpleForm, TextInput, required } from 'react-admin';

export const AdBlockCreate = () => (
  <Create redirect="show">
    <SimpleForm>
      <TextInput source="name" validate={required()} helperText="Where the ads appear, e.g. Home screen banner" fullWidth />
    </SimpleForm>
  </Create>
);

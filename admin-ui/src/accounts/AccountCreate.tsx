import { useState } from 'react';
import { AutocompleteInput, CheckboxGroupInput, Create, type RaRecord, SimpleForm, TextInput, required, useRedirect } from 'react-admin';
import { FormToolbar } from '../common/FormToolbar';
import { OneTimeKeyDialog } from '../common/OneTimeSecret';
import { timeZoneChoices } from '../common/timeZones';
import { ROLES } from './choices';

/** Creating an account answers its first key, which is shown once before going to the account. */
export const AccountCreate = () => {
  const redirect = useRedirect();
  const [created, setCreated] = useState<{ id: string; apiKey: string } | null>(null);
  return (
    <>
      <Create mutationOptions={{ onSuccess: (data: RaRecord<string>) => setCreated({ id: data.id, apiKey: data.apiKey }) }}>
        <SimpleForm defaultValues={{ roles: ['advertiser'], timeZone: 'UTC' }} toolbar={<FormToolbar />}>
          <TextInput source="name" validate={required()} fullWidth />
          <CheckboxGroupInput source="roles" choices={ROLES} validate={required()} />
          <AutocompleteInput
            source="timeZone"
            label="Time zone"
            choices={timeZoneChoices()}
            validate={required()}
            helperText="Daily budgets and day series run from local midnight to local midnight in this zone"
          />
        </SimpleForm>
      </Create>
      <OneTimeKeyDialog
        title="The account's first API key"
        apiKey={created?.apiKey ?? null}
        onClose={() => {
          const id = created?.id;
          setCreated(null);
          if (id) redirect('show', 'accounts', id);
        }}
      />
    </>
  );
};

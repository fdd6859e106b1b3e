import { Chip, Stack } from '@mui/material';
import { FunctionField, List, type RaRecord, SearchInput, SelectInput, TextField } from 'react-admin';
import { DateTimeField } from '../common/fields';
import { ResponsiveGrid } from '../common/ResponsiveGrid';
import { ROLES } from './choices';

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="roles" source="roles" label="Role" choices={ROLES} alwaysOn />,
];

export const RolesField = () => (
  <FunctionField
    label="Roles"
    source="roles"
    render={(record: RaRecord) => (
      <Stack direction="row" spacing={0.5}>
        {record.roles.map((role: string) => (
          <Chip key={role} size="small" label={role} color={role === 'admin' ? 'secondary' : 'default'} />
        ))}
      </Stack>
    )}
  />
);

const phoneRow = {
  primaryText: (record: RaRecord) => record.name,
  secondaryText: (record: RaRecord) => (record.roles as string[]).join(', '),
  tertiaryText: (record: RaRecord) => record.accountId,
};

/** The default actions: filters, Create and Export (CSV). */
export const AccountList = () => (
  <List filters={filters} sort={{ field: 'createdAt', order: 'DESC' }}>
    <ResponsiveGrid phone={phoneRow}>
      <TextField source="name" />
      <RolesField />
      <TextField source="accountId" label="Account id" />
      <DateTimeField source="createdAt" label="Created" />
    </ResponsiveGrid>
  </List>
);

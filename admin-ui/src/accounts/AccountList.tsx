import { Chip, Stack } from '@mui/material';
import { CreateButton, Datagrid, DateField, FunctionField, List, SearchInput, SelectInput, TextField, TopToolbar, FilterButton } from 'react-admin';
import { ROLES } from './choices';

const filters = [
  <SearchInput key="q" source="q" alwaysOn placeholder="Search name or id" />,
  <SelectInput key="roles" source="roles" label="Role" choices={ROLES} alwaysOn />,
];

export const RolesField = () => (
  <FunctionField
    label="Roles"
    source="roles"
    render={(record: any) => (
      <Stack direction="row" spacing={0.5}>
        {record.roles.map((role: string) => (
          <Chip key={role} size="small" label={role} color={role === 'admin' ? 'secondary' : 'default'} />
        ))}
      </Stack>
    )}
  />
);

export const AccountList = () => (
  <List
    filters={filters}
    sort={{ field: 'createdAt', order: 'DESC' }}
    actions={
      <TopToolbar>
        <FilterButton />
        <CreateButton />
      </TopToolbar>
    }
  >
    <Datagrid rowClick="show" bulkActionButtons={false}>
      <TextField source="name" />
      <RolesField />
      <TextField source="accountId" label="Account id" />
      <DateField source="createdAt" showTime label="Created" />
    </Datagrid>
  </List>
);

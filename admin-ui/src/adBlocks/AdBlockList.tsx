import { Stack } from '@mui/material';
import { BooleanField, Datagrid, DateField, FunctionField, List, TextField, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import { CopyButton } from '../common/CopyButton';
import { CountField, MoneyField, RateField } from '../common/fields';

export const AdBlockList = () => {
  const { permissions } = usePermissions();
  return (
    <List sort={{ field: 'createdAt', order: 'DESC' }} title="Ad blocks">
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <TextField source="name" />
        <FunctionField
          label="Ad block id"
          source="adBlockId"
          render={(record: any) => (
            <Stack direction="row" alignItems="center" spacing={0.5}>
              <code data-testid="ad-block-id">{record.adBlockId}</code>
              <CopyButton value={record.adBlockId} label="Copy ad block id" />
            </Stack>
          )}
        />
        <BooleanField source="requireSignedViewer" label="Signed viewers" />
        <CountField source="impressions" />
        <CountField source="views" label="Views (SDK)" />
        <CountField source="clicks" />
        <RateField source="ctr" label="CTR" />
        <MoneyField source="earnings" />
        {isAdmin(permissions) ? <TextField source="userId" label="Owner" /> : null}
        <DateField source="createdAt" showTime label="Created" />
      </Datagrid>
    </List>
  );
};

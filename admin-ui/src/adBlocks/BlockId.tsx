import { Stack } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { CopyButton } from '../common/CopyButton';

/** The block's id, the value its owner puts in their app, with a copy button. `label` is the list column's header. */
export const BlockId = (_props: { label?: string }) => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Stack direction="row" alignItems="center" spacing={0.5}>
      <code data-testid="ad-block-id" style={{ wordBreak: 'break-all' }}>
        {record.adBlockId}
      </code>
      <CopyButton value={record.adBlockId} label="Copy ad block id" />
    </Stack>
  );
};

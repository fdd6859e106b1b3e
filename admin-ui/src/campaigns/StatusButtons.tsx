import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import StopIcon from '@mui/icons-material/Stop';
import { IconButton, Stack, Tooltip } from '@mui/material';
import { useState } from 'react';
import { Button, Confirm, useDataProvider, useNotify, usePermissions, useRecordContext, useRefresh } from 'react-admin';
import { isAdmin } from '../authProvider';
import { ShowActions } from '../common/ShowActions';
import type { AdnetDataProvider, StatusAction } from '../dataProvider';

/**
 * What the state machine allows from a status (docs/CONTRACT.md §3): `start` from paused (and, for an admin,
 * approving inReview); `paused` from onGoing or inReview; `end` from anything but ended (final).
 */
export function allowedActions(status: string, admin: boolean): Record<StatusAction, boolean> {
  return {
    start: status === 'paused' || (admin && status === 'inReview'),
    paused: status === 'onGoing' || status === 'inReview',
    end: status !== 'ended',
  };
}

/** Start/pause/end of a campaign, or (kind="exchange") of an exchange campaign: the same state machine. */
export const StatusButtons = ({ compact = false, kind = 'campaign' }: { compact?: boolean; kind?: 'campaign' | 'exchange' }) => {
  const record = useRecordContext();
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const { permissions } = usePermissions();
  const [busy, setBusy] = useState(false);
  const [confirmEnd, setConfirmEnd] = useState(false);
  if (!record) return null;
  const allowed = allowedActions(record.campaignStatus, isAdmin(permissions));

  const act = async (action: StatusAction) => {
    setBusy(true);
    try {
      if (kind === 'exchange') await dataProvider.setExchangeCampaignStatus(String(record.id), action);
      else await dataProvider.setCampaignStatus(String(record.id), action);
      notify(`${kind === 'exchange' ? 'Exchange campaign' : 'Campaign'} ${action === 'start' ? 'started' : action === 'paused' ? 'paused' : 'ended'}`, {
        type: 'success',
      });
      refresh();
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
      setConfirmEnd(false);
    }
  };
  const stop = (event: React.MouseEvent) => event.stopPropagation();

  const startLabel = record.campaignStatus === 'inReview' ? 'Approve' : 'Start';
  if (compact) {
    // In a list row: icons named by their tooltip and aria-label, so that the row's actions fit a laptop's window.
    const action = (label: string, onClick: () => void, enabled: boolean, icon: React.ReactNode) => (
      <Tooltip title={label}>
        <span>
          <IconButton aria-label={label} size="small" color="primary" onClick={onClick} disabled={busy || !enabled}>
            {icon}
          </IconButton>
        </span>
      </Tooltip>
    );
    return (
      <Stack direction="row" spacing={0} onClick={stop}>
        {action(startLabel, () => act('start'), allowed.start, <PlayArrowIcon fontSize="small" />)}
        {action('Pause', () => act('paused'), allowed.paused, <PauseIcon fontSize="small" />)}
      </Stack>
    );
  }

  return (
    <Stack direction="row" spacing={1} onClick={stop}>
      <Button label={startLabel} onClick={() => act('start')} disabled={busy || !allowed.start}>
        <PlayArrowIcon />
      </Button>
      <Button label="Pause" onClick={() => act('paused')} disabled={busy || !allowed.paused}>
        <PauseIcon />
      </Button>
      <Button label="End" onClick={() => setConfirmEnd(true)} disabled={busy || !allowed.end} color="error">
        <StopIcon />
      </Button>
      <Confirm
        isOpen={confirmEnd}
        title={`End "${record.name}"?`}
        content="Ending is final: an ended campaign can never serve or be edited again."
        onConfirm={() => act('end')}
        onClose={() => setConfirmEnd(false)}
      />
    </Stack>
  );
};

/** A campaign's (or exchange campaign's) show page toolbar: its status buttons, the list, and Edit until it ended. */
export const StatusActions = ({ kind = 'campaign' }: { kind?: 'campaign' | 'exchange' }) => {
  const record = useRecordContext();
  return (
    <ShowActions editable={Boolean(record) && record?.campaignStatus !== 'ended'}>
      <StatusButtons kind={kind} />
    </ShowActions>
  );
};

import { Autocomplete, Box, Stack, TextField, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { Button, useDataProvider, useNotify } from 'react-admin';
import type { Me } from '../authProvider';
import type { AdnetDataProvider } from '../dataProvider';
import { formatDateTime } from '../common/format';
import { timeZoneChoices } from '../common/timeZones';

/**
 * The account's time zone: daily budgets and day series follow its days. A change waits for the next local midnight
 * of the zone in force, which the page says.
 */
export const TimeZoneSetting = ({ me, onChange }: { me: Me; onChange: (me: Me) => void }) => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const choices = useMemo(() => timeZoneChoices().map((choice) => choice.id), []);
  const current = me.timeZone ?? 'UTC';
  const [asked, setAsked] = useState<string>(me.nextTimeZone ?? current);

  const save = async () => {
    try {
      const next = await dataProvider.changeTimeZone(asked);
      onChange(next);
      notify(next.nextTimeZone ? `${next.nextTimeZone} applies from ${formatDateTime(next.timeZoneChangesAt)}` : `Time zone: ${next.timeZone}`, {
        type: 'success',
      });
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };

  return (
    <Box sx={{ mb: 3 }}>
      <Typography variant="h6">Time zone</Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1, maxWidth: 720 }}>
        Daily budgets, <q>spent today</q> and day series run from local midnight to local midnight in this zone. A change applies from the next midnight of the
        zone in force, so today keeps its budget.
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} alignItems={{ sm: 'center' }} spacing={1}>
        <Autocomplete
          options={choices}
          value={asked}
          disableClearable
          onChange={(_, value) => setAsked(value)}
          sx={{ width: 280, maxWidth: '100%' }}
          renderInput={(params) => <TextField {...params} label="Time zone" size="small" inputProps={{ ...params.inputProps, 'data-testid': 'time-zone' }} />}
        />
        <Button label="Save time zone" onClick={save} disabled={asked === (me.nextTimeZone ?? current)} variant="outlined" />
      </Stack>
      <Typography variant="body2" sx={{ mt: 1 }} data-testid="time-zone-state">
        In force: <strong>{current}</strong>
        {me.nextTimeZone ? (
          <>
            {' '}
            · <strong>{me.nextTimeZone}</strong> from {formatDateTime(me.timeZoneChangesAt)}
          </>
        ) : null}
      </Typography>
    </Box>
  );
};

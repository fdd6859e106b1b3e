import AttachFileIcon from '@mui/icons-material/AttachFile';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  LinearProgress,
  Link,
  MenuItem,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { Title, useDataProvider, useGetList, usePermissions } from 'react-admin';
import { isAdmin } from '../authProvider';
import type { FieldError } from '../api';
import type { AdnetDataProvider, ProfileBatchStatus } from '../dataProvider';
import { plural } from '../i18n';
import sampleCsv from './profiles-sample.csv?raw';

/** The sample file the page offers, served from memory (the panel is static files). */
const SAMPLE_CSV_URL = `data:text/csv;charset=utf-8,${encodeURIComponent(sampleCsv)}`;

type BatchStatus = ProfileBatchStatus;

const FINISHED = new Set(['done', 'failed']);
const STATUS_COLORS = { queued: 'default', processing: 'info', done: 'success', failed: 'error' } as const;
const POLL_MS = 500;

/** Share of the import's records applied so far, from the batches' status (a done batch counts whole). */
export function importProgress(batches: BatchStatus[], total: number): number {
  if (total === 0) return batches.length > 0 && batches.every((batch) => batch.status === 'done') ? 100 : 0;
  const applied = batches.reduce((sum, batch) => sum + (batch.status === 'done' ? batch.total : Math.min(batch.processed, batch.total)), 0);
  return Math.min(100, Math.round((applied / total) * 100));
}

/** Lines of the file named by a refused import's field errors (`line.<n>.<column>`), in order, each once. */
export function badLines(fieldErrors: FieldError[]): number[] {
  const lines = fieldErrors.map((fieldError) => /^line\.(\d+)/.exec(fieldError.field)?.[1]).filter((line): line is string => line !== undefined);
  return [...new Set(lines.map(Number))].sort((left, right) => left - right);
}

/** A refused file: every error the API named (up to 100), so all bad rows can be fixed at once. Nothing was imported. */
const ImportError = ({ message, fieldErrors }: { message: string; fieldErrors: FieldError[] }) => {
  const lines = badLines(fieldErrors);
  return (
    <Alert severity="error" data-testid="import-error" sx={{ mb: 2 }}>
      {fieldErrors.length === 0 ? (
        <Typography variant="body2">{message}</Typography>
      ) : (
        <>
          <Typography variant="body2" sx={{ fontWeight: 500 }} data-testid="import-error-summary">
            {lines.length > 0
              ? `Nothing was imported: ${plural(lines.length, 'row')} of the file ${lines.length === 1 ? 'needs' : 'need'} fixing (${plural(fieldErrors.length, 'error')}).`
              : 'Nothing was imported: the file needs fixing.'}
          </Typography>
          <ul style={{ margin: 0, paddingLeft: 20 }} data-testid="import-error-list">
            {fieldErrors.map((fieldError, index) => (
              <li key={`${index}-${fieldError.field}`}>{fieldError.message}</li>
            ))}
          </ul>
        </>
      )}
    </Alert>
  );
};

/** The admin's choice of whose profiles an import writes: their own account's, or a publisher's they name. */
const OWN_ACCOUNT = 'own';

/**
 * Profiles belong to the publisher that uploads them. An admin names the publisher an import is for (nothing is
 * preselected, so an import never lands on a publisher's users by accident).
 */
const TargetPublisher = ({ value, onChange }: { value: string; onChange: (value: string) => void }) => {
  const { data: publishers = [], isPending } = useGetList('accounts', {
    filter: { roles: 'publisher' },
    pagination: { page: 1, perPage: 500 },
    sort: { field: 'name', order: 'ASC' },
  });
  return (
    <TextField
      select
      label="Profiles of"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      helperText="The publisher whose users these are: they target only that publisher's ad blocks"
      sx={{ minWidth: 320 }}
      disabled={isPending}
      inputProps={{ 'data-testid': 'import-publisher' }}
    >
      <MenuItem value={OWN_ACCOUNT}>My own account (my ad blocks only)</MenuItem>
      {publishers.map((account) => (
        <MenuItem key={account.id} value={String(account.id)}>
          {account.name} ({account.id})
        </MenuItem>
      ))}
    </TextField>
  );
};

/**
 * Profile CSV import (header `messengerUserId,walletAddress,walletClassify`, optional extra columns): the file is sent
 * as is and the API answers one batch per 5000 rows; the progress bar follows their status until all are finished.
 */
export const ProfileImport = () => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const { permissions } = usePermissions();
  const admin = isAdmin(permissions);
  const [target, setTarget] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [sending, setSending] = useState(false);
  const [total, setTotal] = useState(0);
  const [batches, setBatches] = useState<BatchStatus[]>([]);
  const [error, setError] = useState<{ message: string; fieldErrors: FieldError[] } | null>(null);

  const running = batches.some((batch) => !FINISHED.has(batch.status));
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(async () => {
      try {
        const next = await Promise.all(batches.map((batch) => (FINISHED.has(batch.status) ? batch : dataProvider.profileBatchStatus(batch.batchId))));
        setBatches(next);
      } catch (caught) {
        setError({ message: (caught as Error).message, fieldErrors: [] });
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [batches, running, dataProvider]);

  const upload = async () => {
    if (!file) return;
    setSending(true);
    setError(null);
    setBatches([]);
    try {
      const answer = await dataProvider.importProfilesCsv(file, admin && target !== OWN_ACCOUNT ? target : undefined);
      setTotal(answer.total);
      setBatches(answer.batchIds.map((batchId) => ({ batchId, status: 'queued', total: 0, processed: 0 })));
    } catch (caught) {
      const failure = caught as { message: string; body?: { fieldErrors?: FieldError[] } };
      setError({ message: failure.message, fieldErrors: failure.body?.fieldErrors ?? [] });
    } finally {
      setSending(false);
    }
  };

  const progress = importProgress(batches, total);
  const finished = batches.length > 0 && !running;
  const failed = batches.filter((batch) => batch.status === 'failed').length;
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="Profile import" />
      <CardContent>
        <Typography gutterBottom>
          Upload user profiles as CSV: a header row with <code>messengerUserId,walletAddress,walletClassify</code> (optional columns <code>ipAddress</code>,{' '}
          <code>isPremium</code>, <code>isHighValue</code>, <code>walletHasBalance</code>, <code>language</code>), one user per row. Profiles feed ad targeting
          as soon as their batch is done, on the ad blocks of the account they belong to only.
        </Typography>
        <Typography variant="body2" gutterBottom>
          <Link href={SAMPLE_CSV_URL} download="profiles-sample.csv" data-testid="sample-csv">
            Download a sample CSV
          </Link>{' '}
          (three users: a TON wallet, an EVM wallet, no wallet; booleans as true/false, 1/0 or yes/no; an empty cell leaves the stored value).
        </Typography>
        {admin ? <TargetPublisher value={target} onChange={setTarget} /> : null}
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', my: 2 }}>
          <Button variant="outlined" component="label" startIcon={<AttachFileIcon />}>
            Choose a CSV file
            <input
              ref={input}
              type="file"
              accept=".csv,text/csv"
              name="csvFile"
              data-testid="csv-file"
              hidden
              onChange={(event) => setFile(event.target.files?.[0] ?? null)}
            />
          </Button>
          <Typography variant="body2" color="text.secondary" data-testid="csv-file-name">
            {file ? file.name : 'no file chosen'}
          </Typography>
          <Button variant="contained" startIcon={<UploadFileIcon />} disabled={!file || sending || running || (admin && !target)} onClick={upload}>
            Import
          </Button>
        </Box>
        {error ? <ImportError {...error} /> : null}
        {batches.length > 0 ? (
          <Box>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
              <LinearProgress
                variant="determinate"
                value={progress}
                sx={{ flex: 1, height: 10, borderRadius: 5 }}
                color={failed ? 'error' : finished ? 'success' : 'primary'}
                data-testid="import-progress"
              />
              <Typography variant="body2" data-testid="import-progress-label" sx={{ minWidth: 48 }}>
                {progress} %
              </Typography>
            </Box>
            <Typography variant="body2" sx={{ mt: 1 }} data-testid="import-summary">
              {finished
                ? failed
                  ? `Finished: ${failed} of ${plural(batches.length, 'batch', 'batches')} failed`
                  : `Done: ${plural(total, 'profile')} in ${plural(batches.length, 'batch', 'batches')}`
                : `Importing ${plural(total, 'profile')} in ${plural(batches.length, 'batch', 'batches')}…`}
            </Typography>
            <Table size="small" sx={{ mt: 1 }}>
              <TableHead>
                <TableRow>
                  <TableCell>Batch</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell align="right">Applied</TableCell>
                  <TableCell>Error</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {batches.map((batch) => (
                  <TableRow key={batch.batchId} data-testid={`batch-${batch.batchId}`}>
                    <TableCell>
                      <code>{batch.batchId}</code>
                    </TableCell>
                    <TableCell>
                      <Chip size="small" label={batch.status} color={STATUS_COLORS[batch.status]} />
                    </TableCell>
                    <TableCell align="right">
                      {batch.processed} / {batch.total || '…'}
                    </TableCell>
                    <TableCell>{batch.error ?? ''}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        ) : null}
      </CardContent>
    </Card>
  );
};

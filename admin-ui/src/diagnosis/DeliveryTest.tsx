import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import CancelIcon from '@mui/icons-material/Cancel';
import { Alert, Box, Button, MenuItem, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { localizeTimes } from '../common/format';
import { checkLabel, DeliveryDiagnosis, DeliveryTestInput, diagnoseDelivery, rankText, verdictOf } from './diagnosis';

const PLATFORMS = ['', 'iOS', 'Android', 'Desktop'];

/**
 * "Test delivery": the facts of one ad request (block, country, language, platform, user) and, for each serving rule,
 * whether the campaign passes it and why. Empty fields are taken from this browser's own request, as matching/ad would.
 */
export const DeliveryTest = ({ campaignId, adBlockId }: { campaignId?: string; adBlockId?: string }) => {
  const [input, setInput] = useState<DeliveryTestInput>({ adBlockId: adBlockId ?? '', country: '', language: '', platform: '', openId: '', limit: 1 });
  const [result, setResult] = useState<DeliveryDiagnosis | null>(null);
  const [error, setError] = useState<{ message: string; fields: Record<string, string> } | null>(null);
  const [running, setRunning] = useState(false);

  const field = (name: keyof DeliveryTestInput) => ({
    name,
    value: input[name] ?? '',
    error: error?.fields[name] !== undefined,
    helperText: error?.fields[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => setInput({ ...input, [name]: event.target.value }),
    size: 'small' as const,
    fullWidth: false,
  });

  const run = async () => {
    setRunning(true);
    setError(null);
    try {
      setResult(await diagnoseDelivery({ ...input, campaignId, limit: Number(input.limit) || undefined }));
    } catch (caught: unknown) {
      const failure = caught as { message?: string; body?: { fieldErrors?: { field: string; message: string }[] } };
      const fields: Record<string, string> = {};
      for (const entry of failure.body?.fieldErrors ?? []) fields[entry.field] = entry.message;
      setResult(null);
      setError({ message: failure.message ?? String(caught), fields });
    } finally {
      setRunning(false);
    }
  };

  return (
    <Box data-testid="delivery-test" sx={{ width: '100%' }}>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 760 }}>
        Runs the serving rules for one ad request without serving anything: nothing is billed or counted. Fields left empty are taken from this browser (its
        address, language and device), as the ad request of a user would be.
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'flex-start', mb: 2 }}>
        <TextField label="Ad block id" {...field('adBlockId')} sx={{ width: 300 }} disabled={adBlockId !== undefined} />
        <TextField label="Country" placeholder="DE" {...field('country')} sx={{ width: 110 }} />
        <TextField label="Language" placeholder="en" {...field('language')} sx={{ width: 110 }} />
        <TextField select label="Platform" {...field('platform')} sx={{ width: 140 }}>
          {PLATFORMS.map((platform) => (
            <MenuItem key={platform} value={platform}>
              {platform || 'From this browser'}
            </MenuItem>
          ))}
        </TextField>
        <TextField label="User (openId)" {...field('openId')} sx={{ width: 200 }} />
        <TextField label="Ads asked (limit)" type="number" {...field('limit')} sx={{ width: 140 }} slotProps={{ htmlInput: { min: 1, max: 9 } }} />
        <Button variant="contained" onClick={run} disabled={running}>
          Run test
        </Button>
      </Stack>
      {error ? (
        <Alert severity="error" data-testid="delivery-test-error">
          {error.message}
        </Alert>
      ) : null}
      {result ? <DiagnosisResult diagnosis={result} /> : null}
    </Box>
  );
};

const DiagnosisResult = ({ diagnosis }: { diagnosis: DeliveryDiagnosis }) => {
  const { facts } = diagnosis;
  return (
    <Box data-testid="delivery-test-result">
      <Alert severity={diagnosis.servable ? 'success' : 'warning'} data-testid="delivery-verdict" sx={{ mb: 2 }}>
        {verdictOf(diagnosis)}
      </Alert>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        Tested as: address {facts.ip}, country {facts.country ?? 'unknown'}, language {facts.language ?? 'unknown'}, platform {facts.platform ?? 'unknown'}
        {facts.openId ? `, user ${facts.openId}${facts.profile ? ' (profile read)' : ' (no profile)'}` : ''}
        {diagnosis.rank ? `; ${rankText(diagnosis.rank)}` : ''}
      </Typography>
      <Table size="small" data-testid="delivery-checks">
        <TableHead>
          <TableRow>
            <TableCell sx={{ width: 40 }} />
            <TableCell>Check</TableCell>
            <TableCell>Why</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {diagnosis.checks.map((check) => (
            <TableRow key={check.check} data-testid={`check-${check.check}`} data-passed={check.passed ? 'true' : 'false'}>
              <TableCell>
                {check.passed ? (
                  <CheckCircleIcon color="success" fontSize="small" titleAccess="passed" />
                ) : (
                  <CancelIcon color="error" fontSize="small" titleAccess="failed" />
                )}
              </TableCell>
              <TableCell>{checkLabel(check.check)}</TableCell>
              <TableCell>{localizeTimes(check.detail)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {diagnosis.ads ? (
        <Box sx={{ mt: 2 }} data-testid="delivery-ads">
          <Typography variant="subtitle2">Ads this block would show, best first</Typography>
          {diagnosis.ads.length === 0 ? (
            <Typography variant="body2">None.</Typography>
          ) : (
            <ol>
              {diagnosis.ads.map((ad) => (
                <li key={ad.campaignId}>
                  {ad.brandName} <code>{ad.campaignId}</code>
                </li>
              ))}
            </ol>
          )}
        </Box>
      ) : null}
    </Box>
  );
};

import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Box,
  Card,
  CardContent,
  Checkbox,
  FormControlLabel,
  FormGroup,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Button, Title, useDataProvider, useNotify } from 'react-admin';
import { API_KEY_STORAGE } from '../api';
import type { AdnetDataProvider, ReportAnswer } from '../dataProvider';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { chartPoints } from './reportChart';

const DIMENSIONS: [value: string, label: string][] = [
  ['day', 'Day'],
  ['hour', 'Hour'],
  ['campaign', 'Campaign'],
  ['adBlock', 'Ad block'],
  ['country', 'Country'],
  ['platform', 'Platform'],
];
const MAX_DIMENSIONS = 3;
const DAY_MS = 86_400_000;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The report's window from the two date inputs: whole UTC days, the end day included. */
function windowOf(fromDay: string, toDay: string): { from: number; to: number } {
  return { from: Date.parse(`${fromDay}T00:00:00Z`), to: Date.parse(`${toDay}T00:00:00Z`) + DAY_MS };
}

/**
 * Reports (GET /report): pick up to three dimensions and a window, see the rows and their totals, download the same
 * report as CSV (docs/ADMIN_PANEL.md).
 */
export const ReportsPage = () => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const today = isoDay(Date.now());
  const [dimensions, setDimensions] = useState<string[]>(['day', 'campaign']);
  const [fromDay, setFromDay] = useState(isoDay(Date.now() - 6 * DAY_MS));
  const [toDay, setToDay] = useState(today);
  const [timeZone, setTimeZone] = useState('UTC');
  const [report, setReport] = useState<ReportAnswer | null>(null);

  const query = () => ({ groupBy: dimensions.join(','), timeZone, ...windowOf(fromDay, toDay) });
  const toggle = (value: string) => setDimensions((current) => (current.includes(value) ? current.filter((one) => one !== value) : [...current, value]));

  const run = async () => {
    try {
      setReport(await dataProvider.report(query()));
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };

  const download = async () => {
    const url = new URL('/api/v2/openapi/report', window.location.origin);
    for (const [name, value] of Object.entries({ ...query(), format: 'csv' })) url.searchParams.set(name, String(value));
    const response = await fetch(url.pathname + url.search, { headers: { 'x-api-key': localStorage.getItem(API_KEY_STORAGE) ?? '' } });
    if (!response.ok) {
      notify(`The report could not be downloaded (HTTP ${response.status})`, { type: 'error' });
      return;
    }
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'report.csv';
    const link = document.createElement('a');
    link.href = URL.createObjectURL(await response.blob());
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
  };

  const columns = report && report.rows.length > 0 ? Object.keys(report.rows[0]) : report ? Object.keys(report.totals) : [];
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="Reports" />
      <CardContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 760 }}>
          Your figures grouped by up to three dimensions. Days and hours are those of the time zone; the totals equal the sums of the campaign or block charts
          over the same window.
        </Typography>
        <FormGroup row data-testid="report-dimensions">
          {DIMENSIONS.map(([value, label]) => (
            <FormControlLabel
              key={value}
              label={label}
              control={
                <Checkbox
                  checked={dimensions.includes(value)}
                  disabled={!dimensions.includes(value) && dimensions.length >= MAX_DIMENSIONS}
                  onChange={() => toggle(value)}
                  inputProps={{ 'aria-label': label }}
                />
              }
            />
          ))}
        </FormGroup>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ my: 2 }}>
          <TextField
            label="From (UTC day)"
            type="date"
            value={fromDay}
            onChange={(event) => setFromDay(event.target.value)}
            size="small"
            InputLabelProps={{ shrink: true }}
          />
          <TextField
            label="To (UTC day, included)"
            type="date"
            value={toDay}
            onChange={(event) => setToDay(event.target.value)}
            size="small"
            InputLabelProps={{ shrink: true }}
          />
          <TextField
            label="Time zone"
            value={timeZone}
            onChange={(event) => setTimeZone(event.target.value)}
            size="small"
            helperText="IANA name, e.g. Europe/Berlin"
          />
          <Box>
            <Button label="Run report" variant="contained" onClick={run} />
          </Box>
          <Box>
            <Button label="Download CSV" onClick={download}>
              <DownloadIcon />
            </Button>
          </Box>
        </Stack>
        {report === null ? null : report.rows.length === 0 ? (
          <Alert severity="info">No traffic in this window.</Alert>
        ) : (
          <Box sx={{ overflowX: 'auto' }}>
            {report.groupBy.length > 0 ? (
              <Box sx={{ height: 260, minWidth: 320, mb: 2 }} data-testid="report-chart">
                <ResponsiveContainer width="100%" height="100%">
                  <BarChart data={chartPoints(report)}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis dataKey="label" />
                    <YAxis allowDecimals={false} />
                    <Tooltip />
                    <Legend />
                    <Bar dataKey="impressions" name="Impressions" fill="#1976d2" />
                    <Bar dataKey="clicks" name="Clicks" fill="#2e7d32" />
                  </BarChart>
                </ResponsiveContainer>
              </Box>
            ) : null}
            <Table size="small" data-testid="report-table">
              <TableHead>
                <TableRow>
                  {columns.map((column) => (
                    <TableCell key={column}>{column}</TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {report.rows.map((row, index) => (
                  <TableRow key={index}>
                    {columns.map((column) => (
                      <TableCell key={column}>{String(row[column] ?? '')}</TableCell>
                    ))}
                  </TableRow>
                ))}
                <TableRow data-testid="report-totals">
                  {columns.map((column, index) => (
                    <TableCell key={column}>
                      <strong>{column in report.totals ? String(report.totals[column]) : index === 0 ? 'Total' : ''}</strong>
                    </TableCell>
                  ))}
                </TableRow>
              </TableBody>
            </Table>
          </Box>
        )}
      </CardContent>
    </Card>
  );
};

import RefreshIcon from '@mui/icons-material/Refresh';
import { Alert, AlertTitle, Box, Button, Typography } from '@mui/material';
import type { ErrorInfo } from 'react';
import { Title } from 'react-admin';
import { RESOURCE_NAMES } from '../i18n';

const CUSTOM_PAGES: Record<string, string> = { me: 'my account', profiles: 'the profile import', queues: 'the queues page', reviews: 'the review queue' };

/** The page a hash route shows, in words: "the campaign page", "the list of ad blocks", "the dashboard". */
export function describePage(hash: string): string {
  const [resource, id, view] = hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean);
  if (!resource) return 'the dashboard';
  const names = RESOURCE_NAMES[resource];
  if (!names) return CUSTOM_PAGES[resource] ?? `the page /${resource}`;
  const one = names.one.toLowerCase();
  if (!id) return `the list of ${names.many.toLowerCase()}`;
  if (id === 'create') return `the form for a new ${one}`;
  return `the ${view === 'show' ? '' : 'edit '}page of ${one} ${decodeURIComponent(id)}`;
}

/**
 * What the panel shows instead of a page that failed to render (react-admin's layout error boundary, and the one
 * around the whole panel): which page, the error's message, and a reload. Never the blank "Something went wrong".
 */
export const PageError = ({ error }: { error?: Error; errorInfo?: ErrorInfo; resetErrorBoundary?: (...args: unknown[]) => void }) => {
  const page = describePage(window.location.hash);
  return (
    <Box sx={{ mt: 2, maxWidth: 840 }} data-testid="page-error">
      <Title title="This page failed" />
      <Alert severity="error" role="alert">
        <AlertTitle>{`${page.charAt(0).toUpperCase()}${page.slice(1)} could not be shown`}</AlertTitle>
        <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-word' }} data-testid="page-error-message">
          {error?.message || String(error)}
        </Typography>
        <Typography variant="body2" sx={{ mt: 1 }}>
          Reloading reads everything again from the API. If the error comes back, send this message to your administrator.
        </Typography>
      </Alert>
      <Button sx={{ mt: 2 }} variant="contained" startIcon={<RefreshIcon />} onClick={() => window.location.reload()}>
        Reload
      </Button>
    </Box>
  );
};

import { Alert, AlertTitle, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { CopyButton } from './CopyButton';

/** Shows a freshly issued API key (and `children` below it): the API never answers it again (only its hash is stored). */
export const OneTimeKeyDialog = ({ apiKey, title, onClose, children }: { apiKey: string | null; title: string; onClose: () => void; children?: ReactNode }) => (
  <Dialog open={Boolean(apiKey)} onClose={onClose} maxWidth="md">
    <DialogTitle>{title}</DialogTitle>
    <DialogContent>
      <Alert severity="warning" sx={{ mb: 2 }}>
        <AlertTitle>Shown this once</AlertTitle>
        Copy the key now and keep it safe: it cannot be displayed again. Issue a new key if it is lost.
      </Alert>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Typography
          component="code"
          data-testid="one-time-key"
          sx={{ fontFamily: 'monospace', wordBreak: 'break-all', bgcolor: 'action.hover', p: 1, borderRadius: 1 }}
        >
          {apiKey}
        </Typography>
        {apiKey ? <CopyButton value={apiKey} label="Copy key" /> : null}
      </Box>
      {children}
    </DialogContent>
    <DialogActions>
      <Button onClick={onClose} variant="contained">
        I have copied it
      </Button>
    </DialogActions>
  </Dialog>
);

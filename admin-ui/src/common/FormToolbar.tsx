import { Typography } from '@mui/material';
import { SaveButton, Toolbar } from 'react-admin';

/**
 * The toolbar of every create and edit form: Save is always enabled (a click on a blank form shows what is
 * required under each field instead of a silently greyed-out button), and no Delete (records are ended, never
 * deleted).
 */
export const FormToolbar = () => (
  <Toolbar sx={{ gap: 2 }}>
    <SaveButton alwaysEnable />
    <Typography variant="body2" color="text.secondary">
      Fields marked * are required
    </Typography>
  </Toolbar>
);

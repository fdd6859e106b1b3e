import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { CreateButton, useResourceDefinition } from 'react-admin';

/**
 * A list with nothing in it yet: what the resource is for and the button to make the first one, instead of an
 * empty table.
 */
export const EmptyList = ({ title, children, createLabel }: { title: string; children: ReactNode; createLabel: string }) => {
  const { hasCreate } = useResourceDefinition();
  return (
    <Box sx={{ textAlign: 'center', mt: 6, mx: 'auto', maxWidth: 560 }} data-testid="empty-list">
      <Typography variant="h5" gutterBottom>
        {title}
      </Typography>
      <Typography variant="body1" color="text.secondary" sx={{ mb: 3 }}>
        {children}
      </Typography>
      {hasCreate ? <CreateButton variant="contained" label={createLabel} /> : null}
    </Box>
  );
};

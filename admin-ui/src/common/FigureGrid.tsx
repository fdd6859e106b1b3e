import { Box } from '@mui/material';
import type { ReactElement, ReactNode } from 'react';
import { Labeled } from 'react-admin';

/** A label and the field that shows the record's value under it. */
export type Figure = [label: string, field: ReactElement];

/** A show page's grid of figures, each field under its label; `children` add cells of their own (NotBilledFigures). */
export const FigureGrid = ({ figures, children, minWidth = 180 }: { figures: Figure[]; children?: ReactNode; minWidth?: number }) => (
  <Box sx={{ display: 'grid', gridTemplateColumns: `repeat(auto-fill, minmax(${minWidth}px, 1fr))`, gap: 2, width: '100%' }}>
    {figures.map(([label, field]) => (
      <Labeled key={label} label={label}>
        {field}
      </Labeled>
    ))}
    {children}
  </Box>
);

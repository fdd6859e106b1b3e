import { useMediaQuery, type Theme } from '@mui/material';
import type { ReactNode } from 'react';
import { Datagrid, SimpleList, type SimpleListProps } from 'react-admin';

/**
 * A list's rows: a table from a laptop's window up, a one-column list on a phone (as react-admin's demo does), so that
 * no page is wider than its window. Each row opens the record's show page, where the figures the table leaves out are.
 */
export const ResponsiveGrid = ({
  phone,
  children,
}: {
  phone: Pick<SimpleListProps, 'primaryText' | 'secondaryText' | 'tertiaryText'>;
  children: ReactNode;
}) => {
  const small = useMediaQuery((theme: Theme) => theme.breakpoints.down('md'));
  if (small) return <SimpleList linkType="show" {...phone} />;
  return (
    <Datagrid rowClick="show" bulkActionButtons={false} sx={{ '& .MuiTableCell-root': { px: 1 } }}>
      {children}
    </Datagrid>
  );
};

import type { ReactNode } from 'react';
import { EditButton, ListButton, TopToolbar, useResourceDefinition } from 'react-admin';

/** A show page's toolbar: `children` (status buttons), back to the list, and Edit where the resource has an edit page. */
export const ShowActions = ({ children, editable = true }: { children?: ReactNode; editable?: boolean }) => {
  const { hasEdit } = useResourceDefinition();
  return (
    <TopToolbar sx={{ alignItems: 'center' }}>
      {children}
      <ListButton />
      {hasEdit && editable ? <EditButton /> : null}
    </TopToolbar>
  );
};

import type { ReactElement, ReactNode } from 'react';
import { Edit, Show, ShowButton, TopToolbar } from 'react-admin';
import { FRESH_RECORD } from './freshRecord';
import { ShowActions } from './ShowActions';

/** A show page: its record's own detail (never a list's partial record), the list and Edit buttons unless told otherwise. */
export const RecordShow = ({ actions, children }: { actions?: ReactElement; children: ReactNode }) => (
  <Show queryOptions={FRESH_RECORD} actions={actions ?? <ShowActions />}>
    {children}
  </Show>
);

/**
 * An edit page: its record's own detail (never a list's partial record), pessimistic (the API checks the merged
 * record and its field errors must reach the form), back to the record's page once saved.
 */
export const RecordEdit = ({ children }: { children: ReactNode }) => (
  <Edit
    queryOptions={FRESH_RECORD}
    mutationMode="pessimistic"
    redirect="show"
    actions={
      <TopToolbar>
        <ShowButton />
      </TopToolbar>
    }
  >
    {children}
  </Edit>
);

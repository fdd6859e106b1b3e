import { FormControlLabel, Switch } from '@mui/material';
import { useNotify, useRecordContext, useUpdate } from 'react-admin';
import { FRESH_RECORD } from '../common/freshRecord';

export const SIGNED_VIEWER_HELP =
  'When on, ad requests need an x-adnet-viewer header made by your server with your webhook secret (see My account and docs/SIGNED_VIEWERS.md): a copied key alone fetches nothing.';

/** What the rule does now, for the block's page: the switch beside it says whether it is on. */
export function signedViewerState(required: boolean): string {
  return required
    ? 'On: ad requests need an x-adnet-viewer header made by your server with your webhook secret (see My account and docs/SIGNED_VIEWERS.md); a copied key alone fetches nothing.'
    : 'Off: any page holding your serve key can fetch ads for this block. Turn it on to require a viewer token your server signs.';
}

/** The block's "require signed viewer" rule, changed in place through ad/block/update. */
export const SignedViewerSwitch = () => {
  const record = useRecordContext();
  const notify = useNotify();
  const [update, { isPending }] = useUpdate();
  if (!record) return null;
  const toggle = (checked: boolean) =>
    update(
      'adBlocks',
      { id: record.id, data: { requireSignedViewer: checked }, previousData: record, meta: FRESH_RECORD.meta },
      {
        // the switch moves at once (rolled back if the API refuses)
        mutationMode: 'optimistic',
        onSuccess: () => notify(checked ? 'Signed viewers required' : 'Signed viewers no longer required', { type: 'success' }),
        onError: (error) => notify((error as Error).message, { type: 'error' }),
      },
    );
  return (
    <FormControlLabel
      control={
        <Switch
          checked={Boolean(record.requireSignedViewer)}
          disabled={isPending}
          onChange={(event) => toggle(event.target.checked)}
          inputProps={{ 'aria-label': 'Require signed viewer' }}
          data-testid="require-signed-viewer"
        />
      }
      label="Require signed viewer"
    />
  );
};

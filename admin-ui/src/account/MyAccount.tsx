import AutorenewIcon from '@mui/icons-material/Autorenew';
import { Alert, Box, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Button, Confirm, Title, useDataProvider, useNotify } from 'react-admin';
import type { Me } from '../authProvider';
import { ApiKeys } from '../common/ApiKeys';
import { CopyButton } from '../common/CopyButton';
import { TimeZoneSetting } from './TimeZoneSetting';
import type { AdnetDataProvider } from '../dataProvider';

/** The account behind the key (account/me), and the webhook secret that signs verification calls. */
export const MyAccount = () => {
  const dataProvider = useDataProvider<AdnetDataProvider>();
  const notify = useNotify();
  const [me, setMe] = useState<Me | null>(null);
  const [shown, setShown] = useState(false);
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    dataProvider
      .me()
      .then(setMe)
      .catch((error: Error) => notify(error.message, { type: 'error' }));
  }, [dataProvider, notify]);

  const [confirmingToken, setConfirmingToken] = useState(false);
  const rotateToken = async () => {
    setConfirmingToken(false);
    try {
      setMe(await dataProvider.rotatePostbackToken());
      notify('New postback token: update the postback URLs of your attribution tools', { type: 'success' });
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };

  const rotate = async () => {
    setConfirming(false);
    try {
      setMe(await dataProvider.rotateWebhookSecret());
      setShown(true);
      notify('New webhook secret: update your verification endpoint', { type: 'success' });
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    }
  };

  if (!me) return null;
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="My account" />
      <CardContent>
        <Typography variant="h5">{me.name}</Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          Account id <code>{me.accountId}</code>
        </Typography>
        <Stack direction="row" spacing={0.5} sx={{ mb: 3 }}>
          {me.roles.map((role) => (
            <Chip key={role} label={role} size="small" />
          ))}
        </Stack>
        <TimeZoneSetting me={me} onChange={setMe} />
        {me.webhookSecret ? (
          <Box>
            <Typography variant="h6">Webhook secret</Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1, maxWidth: 720 }}>
              Calls to your verification endpoint carry <code>x-adnet-timestamp</code> and <code>x-adnet-signature</code>, the lower-case hex HMAC-SHA256 of{' '}
              <code>&lt;timestamp&gt;.&lt;messenger_id&gt;</code> keyed with this secret. Publishers sign viewer tokens with it (<code>x-adnet-viewer</code>, ad
              blocks that require signed viewers). Keep it on your server.
            </Typography>
            <Stack direction="row" alignItems="center" spacing={1}>
              <Typography component="code" data-testid="webhook-secret" sx={{ fontFamily: 'monospace', bgcolor: 'action.hover', p: 1, borderRadius: 1 }}>
                {shown ? me.webhookSecret : '•'.repeat(24)}
              </Typography>
              <Button label={shown ? 'Hide' : 'Show'} onClick={() => setShown(!shown)} />
              <CopyButton value={me.webhookSecret} label="Copy secret" />
              <Button label="Rotate" onClick={() => setConfirming(true)} color="warning">
                <AutorenewIcon />
              </Button>
            </Stack>
            <Confirm
              isOpen={confirming}
              title="Rotate the webhook secret?"
              content="Calls are signed with the new secret at once and viewer tokens signed with the old one are refused; update your servers."
              onConfirm={rotate}
              onClose={() => setConfirming(false)}
            />
          </Box>
        ) : (
          <Alert severity="info">Only advertiser and publisher accounts have a webhook secret.</Alert>
        )}
        {me.postbackToken ? (
          <Box sx={{ mt: 3 }}>
            <Typography variant="h6">Postback token</Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1, maxWidth: 720 }}>
              Attribution tools report conversions by click id with it:{' '}
              <code>GET /api/v2/openapi/postback?token=…&amp;clickId=&#123;click_id&#125;&amp;event=conversion&amp;transactionId=…</code>. It can only report
              events of your account; it is not an API key.
            </Typography>
            <Stack direction="row" alignItems="center" spacing={1}>
              <Typography component="code" data-testid="postback-token" sx={{ fontFamily: 'monospace', bgcolor: 'action.hover', p: 1, borderRadius: 1 }}>
                {me.postbackToken}
              </Typography>
              <CopyButton value={me.postbackToken} label="Copy token" />
              <Button label="Replace token" onClick={() => setConfirmingToken(true)} color="warning">
                <AutorenewIcon />
              </Button>
            </Stack>
            <Confirm
              isOpen={confirmingToken}
              title="Rotate the postback token?"
              content="Postback URLs with the old token are refused at once; update your attribution tools."
              onConfirm={rotateToken}
              onClose={() => setConfirmingToken(false)}
            />
          </Box>
        ) : null}
        <Box sx={{ mt: 3 }}>
          <ApiKeys owner={{ own: true }} />
        </Box>
      </CardContent>
    </Card>
  );
};

import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Alert, Button, Card, CardContent, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Title } from 'react-admin';
import { API_KEY_STORAGE } from '../api';

/**
 * The job queues are shown by bull-board, served by the API itself at /admin/queues for admin keys. A browser
 * cannot send x-api-key on a link, so the key goes once as ?key=, which the board swaps for an HttpOnly cookie.
 */
export const QueuesPage = () => {
  const key = localStorage.getItem(API_KEY_STORAGE) ?? '';
  // /health says whether this service runs on Redis: without it (the embedded profile) there is no board to open.
  const [redis, setRedis] = useState<string | null>(null);
  useEffect(() => {
    fetch('/health')
      .then((response) => response.json())
      .then((body: { data?: { redis?: string } }) => setRedis(body.data?.redis ?? 'unknown'))
      .catch(() => setRedis('unknown'));
  }, []);
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="Queues" />
      <CardContent>
        <Typography gutterBottom>Profile imports and verification calls run as jobs on queues. Their live view (bull-board) opens in a new tab.</Typography>
        {redis === 'not configured' ? (
          <Alert severity="info" data-testid="queues-embedded">
            This service runs on the embedded profile: its queues run inside the API process, without Redis, so there is no live view to open. Start it with
            REDIS_URL (the MySQL + Redis profile) to see the queues here.
          </Alert>
        ) : (
          <Button
            variant="contained"
            href={`/admin/queues?key=${encodeURIComponent(key)}`}
            target="_blank"
            rel="noopener noreferrer"
            endIcon={<OpenInNewIcon />}
            data-testid="open-queues"
            disabled={redis === null}
          >
            Open the queue view
          </Button>
        )}
      </CardContent>
    </Card>
  );
};

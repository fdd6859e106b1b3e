import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Button, Card, CardContent, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { API_KEY_STORAGE } from '../api';

/**
 * The job queues are shown by bull-board, served by the API itself at /admin/queues for admin keys. A browser
 * cannot send x-api-key on a link, so the key goes once as ?key=, which the board swaps for an HttpOnly cookie.
 */
export const QueuesPage = () => {
  const key = localStorage.getItem(API_KEY_STORAGE) ?? '';
  return (
    <Card sx={{ mt: 2 }}>
      <Title title="Queues" />
      <CardContent>
        <Typography gutterBottom>Profile imports and verification calls run as jobs on queues. Their live view (bull-board) opens in a new tab.</Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          It needs the MySQL + Redis profile: on the embedded profile the queues run inside the API process and the view answers 404 saying so.
        </Typography>
        <Button
          variant="contained"
          href={`/admin/queues?key=${encodeURIComponent(key)}`}
          target="_blank"
          rel="noopener noreferrer"
          endIcon={<OpenInNewIcon />}
          data-testid="open-queues"
        >
          Open the queue view
        </Button>
      </CardContent>
    </Card>
  );
};

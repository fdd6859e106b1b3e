import { Alert, Box, Button, Card, CardContent, Chip, Stack, TextField, Typography } from '@mui/material';
import { useCallback, useEffect, useState } from 'react';
import { HttpError, Title, useNotify } from 'react-admin';
import { api } from '../api';
import { CreativeView } from '../campaigns/CampaignShow';
import { formatDateTime } from '../common/format';
import { hostChange } from './hosts';

interface Creative {
  adFormat: string;
  popupImage: string;
  icon: string;
  destination: { actionType: string; url: string };
  text: string;
  brandName: string;
  buttonText: string;
}

interface ReviewItem {
  campaignId: string;
  userId: string;
  name: string;
  kind: 'new' | 'revision';
  waitingSince: number;
  campaignStatus: string;
  category: string;
  /** The category the revision would give it, when it changes it */
  pendingCategory?: string | null;
  approvedAd: Creative | null;
  pendingAd: Creative;
}

const REVIEWS = '/api/v2/admin/reviews';

/**
 * The admins' review queue (CAMPAIGN_REVIEW=true): new campaigns and edited creatives, oldest first, the serving
 * creative beside the one waiting, a landing host change called out; approve, or reject with a note.
 */
export const ReviewQueuePage = () => {
  const [items, setItems] = useState<ReviewItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api<{ reviews: ReviewItem[] }>(REVIEWS, { query: { pageSize: 100 } })
      .then((data) => setItems(data.reviews))
      .catch((failure: Error) => setError(failure.message));
  }, []);
  useEffect(load, [load]);
  return (
    <Box sx={{ mt: 2 }}>
      <Title title="Reviews" />
      {error ? <Alert severity="error">{error}</Alert> : null}
      {items === null ? null : items.length === 0 ? (
        <Alert severity="info" data-testid="reviews-empty">
          Nothing waits for review. New campaigns and edited creatives appear here when the service runs with CAMPAIGN_REVIEW=true.
        </Alert>
      ) : (
        <Stack spacing={2}>
          {items.map((item) => (
            <ReviewCard key={item.campaignId} item={item} onDecided={load} />
          ))}
        </Stack>
      )}
    </Box>
  );
};

const ReviewCard = ({ item, onDecided }: { item: ReviewItem; onDecided: () => void }) => {
  const notify = useNotify();
  const [note, setNote] = useState('');
  const [noteError, setNoteError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const change = hostChange(item.approvedAd?.destination.url, item.pendingAd.destination.url);
  const decide = async (action: 'approve' | 'reject') => {
    setBusy(true);
    setNoteError(null);
    try {
      await api(`${REVIEWS}/${action}`, { body: action === 'approve' ? { campaignId: item.campaignId } : { campaignId: item.campaignId, note } });
      notify(action === 'approve' ? `Approved: ${item.name}` : `Rejected: ${item.name}`, { type: 'info' });
      onDecided();
    } catch (failure) {
      const message = (failure as HttpError).message;
      if (action === 'reject') setNoteError(message);
      else notify(message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card data-testid={`review-${item.campaignId}`}>
      <CardContent>
        <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: 1, flexWrap: 'wrap' }}>
          <Typography variant="h6">{item.name}</Typography>
          <Chip size="small" label={item.kind === 'new' ? 'new campaign' : 'edited creative'} />
          <Chip
            size="small"
            label={item.pendingCategory ? `category ${item.category} → ${item.pendingCategory}` : item.category}
            color={item.pendingCategory ? 'warning' : 'default'}
            variant="outlined"
            data-testid="category-change"
          />
          <Typography variant="body2" color="text.secondary">
            waiting since {formatDateTime(item.waitingSince)}
          </Typography>
        </Stack>
        {change ? (
          <Alert severity="warning" sx={{ mb: 2 }} data-testid="host-change">
            The landing host changes: {change.from} → <strong>{change.to}</strong>
          </Alert>
        ) : null}
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: item.approvedAd ? '1fr 1fr' : '1fr' }, gap: 3 }}>
          {item.approvedAd ? (
            <Box data-testid="approved-creative">
              <Typography variant="subtitle2" gutterBottom>
                Serving now (approved)
              </Typography>
              <CreativeView ad={item.approvedAd} />
            </Box>
          ) : null}
          <Box data-testid="pending-creative">
            <Typography variant="subtitle2" gutterBottom>
              {item.approvedAd ? 'Waiting for review' : 'New campaign'}
            </Typography>
            <CreativeView ad={item.pendingAd} />
          </Box>
        </Box>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} alignItems={{ sm: 'flex-start' }} sx={{ mt: 2 }}>
          <Button variant="contained" color="success" disabled={busy} onClick={() => void decide('approve')}>
            Approve
          </Button>
          <TextField
            label="Note for the advertiser"
            size="small"
            value={note}
            onChange={(event) => setNote(event.target.value)}
            error={noteError !== null}
            helperText={noteError ?? 'Required to reject: the advertiser sees it'}
            sx={{ minWidth: 320 }}
          />
          <Button variant="outlined" color="error" disabled={busy} onClick={() => void decide('reject')}>
            Reject
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
};

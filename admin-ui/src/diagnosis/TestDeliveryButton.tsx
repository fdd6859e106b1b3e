import PlayCircleOutlineIcon from '@mui/icons-material/PlayCircleOutline';
import { Button, useRecordContext } from 'react-admin';
import { Link } from 'react-router-dom';

/** On an ad block's show page: opens "Test delivery" for it. */
export const TestDeliveryButton = () => {
  const record = useRecordContext();
  if (!record) return null;
  return (
    <Button component={Link} to={`/test-delivery?adBlockId=${encodeURIComponent(String(record.id))}`} label="Test delivery">
      <PlayCircleOutlineIcon />
    </Button>
  );
};

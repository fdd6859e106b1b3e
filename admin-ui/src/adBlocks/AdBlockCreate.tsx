import { Create } from 'react-admin';
import { RecordEdit } from '../common/RecordPages';
import { AdBlockForm } from './AdBlockForm';

export const AdBlockCreate = () => (
  <Create redirect="show">
    <AdBlockForm defaultValues={{ requireSignedViewer: false, blockedCategories: [], format: 'banner', minViewMs: 10000, dailyRewardCap: 20 }} />
  </Create>
);

export const AdBlockEdit = () => (
  <RecordEdit>
    <AdBlockForm />
  </RecordEdit>
);

import { ToggleButton, ToggleButtonGroup } from '@mui/material';
import { RANGES, type RangeName } from './SeriesChart';

/** The time range of a resource's charts (campaigns, ad blocks, exchange campaigns). */
export const RangePicker = ({ value, onChange }: { value: RangeName; onChange: (range: RangeName) => void }) => (
  <ToggleButtonGroup size="small" exclusive value={value} onChange={(_event, range) => range && onChange(range)} sx={{ mb: 2 }}>
    {(Object.keys(RANGES) as RangeName[]).map((name) => (
      <ToggleButton key={name} value={name}>
        {RANGES[name].label}
      </ToggleButton>
    ))}
  </ToggleButtonGroup>
);

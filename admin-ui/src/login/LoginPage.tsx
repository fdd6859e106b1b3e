import KeyIcon from '@mui/icons-material/Key';
import { Alert, Avatar, Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useLogin } from 'react-admin';

/** Logs in with an API key (checked against account/me); there are no passwords. */
export const LoginPage = () => {
  const login = useLogin();
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login({ apiKey });
    } catch (caught) {
      setError((caught as Error).message || 'Login failed');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: 'grey.100' }}>
      <Card sx={{ width: 440 }}>
        <CardContent>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
            <Avatar sx={{ bgcolor: 'primary.main' }}>
              <KeyIcon />
            </Avatar>
            <Box>
              <Typography variant="h6">Ad network admin</Typography>
              <Typography variant="body2" color="text.secondary">
                Log in with your API key
              </Typography>
            </Box>
          </Box>
          <form onSubmit={submit}>
            <TextField
              name="apiKey"
              label="API key"
              type="password"
              autoComplete="off"
              fullWidth
              autoFocus
              value={apiKey}
              onChange={(event) => setApiKey(event.target.value)}
              helperText="Sent as x-api-key; kept in this browser until you log out"
            />
            {error ? (
              <Alert severity="error" sx={{ mt: 2 }} role="alert" data-testid="login-error">
                {error}
              </Alert>
            ) : null}
            <Button type="submit" variant="contained" fullWidth sx={{ mt: 2 }} disabled={busy || !apiKey.trim()}>
              Log in
            </Button>
          </form>
        </CardContent>
      </Card>
    </Box>
  );
};

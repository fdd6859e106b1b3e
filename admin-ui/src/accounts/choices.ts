export const ROLES = ['advertiser', 'publisher', 'partner', 'admin'].map((id) => ({ id, name: id }));

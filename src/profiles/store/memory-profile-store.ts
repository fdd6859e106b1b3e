import { ProfileFacts, ProfileStore } from './profile-store';

/** The embedded profile's store: a Map in the one process, rebuilt from the database at every start. */
export class MemoryProfileStore implements ProfileStore {
  private readonly profiles = new Map<string, ProfileFacts>();
  private built = false;

  async get(messengerUserId: string): Promise<ProfileFacts | null> {
    return this.profiles.get(messengerUserId) ?? null;
  }

  async putMany(entries: [string, ProfileFacts][]): Promise<void> {
    for (const [userId, facts] of entries) this.profiles.set(userId, facts);
  }

  async isBuilt(): Promise<boolean> {
    return this.built;
  }

  async markBuilt(): Promise<void> {
    this.built = true;
  }
}

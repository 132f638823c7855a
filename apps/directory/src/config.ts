import { deploymentChecks, DomainServiceConfigSchema } from '@townhall/platform/service';

/** The directory reads only what every domain service reads. */
export const DirectoryConfigSchema = DomainServiceConfigSchema.superRefine(deploymentChecks);
export type DirectoryConfig = ReturnType<typeof DirectoryConfigSchema.parse>;

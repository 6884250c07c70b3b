import { Type, type Static } from '@sinclair/typebox';

export const Workspace = Type.Object({
  id: Type.String({ description: 'wsp_…' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Workspace' });
export type WorkspaceView = Static<typeof Workspace>;

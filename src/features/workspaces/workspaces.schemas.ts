import { Type, type Static } from '@sinclair/typebox';

const TimeZone = Type.String({
  minLength: 1, maxLength: 64,
  description: 'IANA time zone (`America/Chicago`, `Europe/Paris`, `UTC`). A photo whose EXIF time has no UTC offset and that has no GPS position, '
    + 'in a project without coordinates, is read in this zone; so are the times of reports of such projects. Default `UTC`.',
});

export const Workspace = Type.Object({
  id: Type.String({ description: 'wsp_…' }),
  name: Type.String(),
  time_zone: TimeZone,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Workspace' });
export type WorkspaceView = Static<typeof Workspace>;

export const WorkspacePatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  time_zone: Type.Optional(TimeZone),
}, {
  additionalProperties: false, title: 'WorkspacePatch',
  description: 'JSON merge patch (admins only). A new `time_zone` applies to photos processed from then on; photos already processed keep the zone they were read in.',
});
export type WorkspacePatchInput = Static<typeof WorkspacePatch>;

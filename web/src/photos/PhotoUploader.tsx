import { FileUploader, type FileUploaderWords } from '../uploads/FileUploader.tsx';
import { useUploads } from '../uploads/useUploads.ts';
import { kindOfFile, uploadMedia, type MediaItem } from './mediaApi.ts';
import './photos.css';

const WORDS: FileUploaderWords = {
  zone: 'Upload photos and videos',
  hint: 'Drop photos and videos here, or',
  choose: 'Choose photos and videos',
  camera: 'Take photo',
  accept: 'image/*,video/*',
  unnamed: (file) => (kindOfFile(file) === 'video' ? 'Video' : 'Photo'),
};

/**
 * Adding photos and videos to a project: drop files on the zone, choose them, or (on a phone)
 * take a photo or video with the camera. Each file gets a row with its progress, Cancel while it
 * travels, and the API's refusal in words with Retry.
 */
export function PhotoUploader({ projectId, onUploaded }: { projectId: string; onUploaded(item: MediaItem): void }) {
  const uploads = useUploads((file, options) => uploadMedia(projectId, file, options), onUploaded);
  return <FileUploader uploads={uploads} words={WORDS} />;
}

/** Vite turns an imported image into the URL of the hashed file it emits. */
declare module '*.png' {
  const url: string;
  export default url;
}

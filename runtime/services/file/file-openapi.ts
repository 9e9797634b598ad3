/** The OpenAPI paths of a file service (reference §1): folders end in `/`, files do not. */
import type { OperationObject, ParameterObject, ReferenceObject, SchemaObject } from 'openapi3-ts/oas30';
import type { OpenApiFragment } from '../../openapi/fragment.js';
import { componentRef, jsonContent } from '../../openapi/shared-components.js';

const query = (name: string, type: 'string' | 'boolean', description: string): ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type },
});
const pathParam = (name: string, description: string): ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const entry: SchemaObject = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path from the service root; folders end in `/`.' },
    name: { type: 'string', description: 'Path relative to the listed folder.' },
    type: { type: 'string', enum: ['file', 'folder'] },
    content_type: { type: 'string' },
    content_length: { type: 'integer' },
    last_modified: { type: 'string', description: 'RFC 1123 date (GMT).' },
  },
};
const written: SchemaObject = {
  type: 'object',
  properties: { name: { type: 'string' }, path: { type: 'string' }, type: { type: 'string' } },
};
const listOf = (schema: SchemaObject | ReferenceObject): SchemaObject => ({
  type: 'object',
  properties: { resource: { type: 'array', items: schema } },
});
const ok = (description: string, schema: SchemaObject | ReferenceObject) => ({ description, content: jsonContent(schema) });

/** The JSON shapes, as components the operations reference (spec, Discovery). */
const SCHEMAS: Record<string, SchemaObject> = {
  FileEntry: entry,
  FileEntries: listOf(componentRef('schemas', 'FileEntry')),
  FileWritten: written,
  // anyOf: neither shape requires a member, so an entry would match both and fail a oneOf.
  FileWrittenList: { anyOf: [componentRef('schemas', 'FileWritten'), listOf(componentRef('schemas', 'FileWritten'))] },
  FileItems: {
    ...listOf({ type: 'object', additionalProperties: true }),
    description: 'Items to create or delete: files (`name` or `path`, `content`, `is_base64`, `source_path`) and folders.',
  },
  // Upload bodies reference components too, whatever their media type (spec, Discovery: requestBody referencing components/schemas).
  FileContent: { type: 'string', format: 'binary', description: 'Raw file content.' },
  FileUpload: {
    type: 'object',
    properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } },
    description: 'Multipart `files` (several allowed on a folder).',
  },
};
const ref = (name: keyof typeof SCHEMAS) => componentRef('schemas', name);

const listParameters = [
  query('include_folders', 'boolean', 'List folders (default true).'),
  query('include_files', 'boolean', 'List files (default true).'),
  query('full_tree', 'boolean', 'List the whole tree under the folder (default false: one level).'),
  query('search', 'string', 'Only entries whose name contains this text (case-insensitive).'),
  query('as_list', 'boolean', 'Return the paths only.'),
  query('fields', 'string', 'Comma-separated entry fields to return.'),
  query('include_properties', 'boolean', "Return the folder's own properties instead of its content."),
  query('zip', 'boolean', 'Download the folder as a zip archive.'),
];
const writeParameters = [
  query('check_exist', 'boolean', 'Refuse (400) to overwrite an existing file (default false: overwrite).'),
  query('extract', 'boolean', 'Unpack an uploaded zip archive into the folder.'),
  query('clean', 'boolean', 'With extract: empty the folder first.'),
  query('url', 'string', 'Import the file at this http(s) URL into the folder.'),
  query('filename', 'string', 'With url: the name to store it under.'),
];
const uploadBody = {
  description:
    'Raw file content (with `X-File-Name` on a folder), multipart `files` (several allowed on a folder), or on a folder a JSON list of items to create: `{"resource":[{"name":"a.txt","type":"file","content":"…","is_base64":false},{"name":"sub","type":"folder"},{"type":"file","source_path":"x/y.txt","delete_source":false}]}`.',
  content: {
    'application/octet-stream': { schema: ref('FileContent') },
    'multipart/form-data': { schema: ref('FileUpload') },
    'application/json': { schema: ref('FileItems') },
  },
};

function folderOperations(id: string, where: string, parameters: ParameterObject[]): Record<string, OperationObject> {
  return {
    get: {
      operationId: `list${id}`,
      summary: `List ${where}, show its properties, or download it as a zip.`,
      parameters: [...parameters, ...listParameters],
      responses: {
        200: {
          description: 'The entries (`{"resource":[…]}`), the folder properties, or a zip archive.',
          content: { ...jsonContent(ref('FileEntries')), 'application/zip': { schema: { type: 'string', format: 'binary' } } },
        },
      },
    },
    post: {
      operationId: `create${id}`,
      summary: `Create files or folders in ${where}: upload, import from a URL, unpack a zip, copy, move, or create the folder itself.`,
      parameters: [
        ...parameters,
        ...writeParameters,
        {
          name: 'X-File-Name',
          in: 'header',
          required: false,
          description: 'Store the raw body as this file in the folder.',
          schema: { type: 'string' },
        },
        { name: 'X-Folder-Name', in: 'header', required: false, description: 'Create this sub-folder.', schema: { type: 'string' } },
      ],
      requestBody: { ...uploadBody, required: false },
      responses: { 201: ok('What was created.', ref('FileWrittenList')) },
    },
    delete: {
      operationId: `delete${id}`,
      summary: `Delete ${where === 'the service root' ? 'the files and folders listed in the body' : 'the folder (or the listed items in it)'}.`,
      parameters: [
        ...parameters,
        query('force', 'boolean', 'Delete folders that are not empty.'),
        query('content_only', 'boolean', 'Empty the folder but keep it.'),
      ],
      requestBody: {
        required: false,
        description: 'Optional `{"resource":[{"path":"a/b.txt","type":"file"},{"name":"x","type":"folder"}]}`.',
        content: jsonContent(ref('FileItems')),
      },
      responses: { 200: ok('What was deleted.', ref('FileWrittenList')) },
    },
  };
}

export function fileServiceOpenApi(service: string): OpenApiFragment {
  const folderPath = pathParam('folder_path', 'Folder path from the service root (may hold `/`).');
  const filePath = pathParam('file_path', 'File path from the service root (may hold `/`).');
  const fileWrite: OperationObject = {
    operationId: 'writeFile',
    summary: 'Write the file from the raw body or one multipart file (created or replaced).',
    parameters: [filePath, query('check_exist', 'boolean', 'Refuse (400) to overwrite an existing file.')],
    requestBody: { ...uploadBody, required: true },
    responses: { 201: ok('The file written.', ref('FileWritten')) },
  };
  return {
    paths: {
      '/': folderOperations('Root', 'the service root', []),
      '/{folder_path}/': folderOperations('Folder', 'a folder', [folderPath]),
      '/{file_path}': {
        get: {
          operationId: 'getFile',
          summary: `Download a file of ${service}, or its properties.`,
          parameters: [
            filePath,
            query('download', 'boolean', 'Send as an attachment.'),
            query('include_properties', 'boolean', "Return the file's properties instead."),
            query('content', 'boolean', 'With include_properties: add the content (base64 unless is_base64=false).'),
            {
              name: 'Range',
              in: 'header',
              required: false,
              description: 'One byte range (`bytes=0-99`): 206 with that part.',
              schema: { type: 'string' },
            },
          ],
          responses: {
            // The content comes with the file's own type (text/plain, image/png...), whatever it is.
            200: {
              description: 'The file content (its own content type), or its properties.',
              content: {
                'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
                ...jsonContent(ref('FileEntry')),
                '*/*': { schema: { type: 'string', format: 'binary' } },
              },
            },
            206: { description: 'The requested range.', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
            416: { description: 'The range is outside the file.', content: jsonContent(componentRef('schemas', 'Error')) },
          },
        },
        post: fileWrite,
        put: { ...fileWrite, operationId: 'replaceFile' },
        delete: {
          operationId: 'deleteFile',
          summary: 'Delete the file.',
          parameters: [filePath],
          responses: { 200: ok('The file deleted.', ref('FileWritten')) },
        },
      },
    },
    components: { schemas: structuredClone(SCHEMAS) },
  };
}

import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrorDto, RequireApiKey } from '@app/auth';
import { DOCUMENT_PAGE_DEFAULT_LIMIT } from '@app/contracts';
import {
  DocumentContentDto,
  DocumentDto,
  DocumentPageDto,
  DocumentPageQueryDto,
  SimpleUploadDto,
  UploadDocumentDto,
} from './document.dto';
import { DocumentFileInterceptor } from './document-file.interceptor';
import { DocumentsService, UploadedFile as UploadedDocument } from './documents.service';

const FILE_SCHEMA = { type: 'string', format: 'binary' };
const DUPLICATE =
  'The same bytes (SHA-256) are already stored; the message names that document id and title. ' +
  'Delete it first to replace it.';

@ApiTags('documents')
@Controller('api')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Post('documents/upload')
  @RequireApiKey('knowledge_admin')
  @UseInterceptors(DocumentFileInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file', 'title'],
      properties: {
        file: FILE_SCHEMA,
        title: { type: 'string' },
        category: { type: 'string' },
        fault_source: { type: 'string' },
      },
    },
  })
  @ApiCreatedResponse({ type: DocumentDto })
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'Not a text runbook, missing title, or a form limit (the message names it)',
  })
  @ApiPayloadTooLargeResponse({
    type: ApiErrorDto,
    description: 'File over DOCUMENTS_MAX_BYTES (the message names the limit)',
  })
  @ApiConflictResponse({ type: ApiErrorDto, description: DUPLICATE })
  async upload(
    @UploadedFile() file: UploadedDocument | undefined,
    @Body() body: UploadDocumentDto,
  ): Promise<DocumentDto> {
    return DocumentDto.of(
      await this.documents.ingest(file, {
        title: body.title,
        category: body.category,
        faultSource: body.fault_source,
      }),
    );
  }

  @Post('upload')
  @RequireApiKey('knowledge_admin')
  @UseInterceptors(DocumentFileInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: { file: FILE_SCHEMA, category: { type: 'string' } },
    },
  })
  @ApiCreatedResponse({ type: DocumentDto })
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'Not a text runbook, or a form limit (the message names it)',
  })
  @ApiPayloadTooLargeResponse({
    type: ApiErrorDto,
    description: 'File over DOCUMENTS_MAX_BYTES (the message names the limit)',
  })
  @ApiConflictResponse({ type: ApiErrorDto, description: DUPLICATE })
  async simpleUpload(
    @UploadedFile() file: UploadedDocument | undefined,
    @Body() body: SimpleUploadDto,
  ): Promise<DocumentDto> {
    return DocumentDto.of(await this.documents.ingest(file, { category: body.category }));
  }

  @Get('documents/status/:status')
  @RequireApiKey('chat')
  @ApiOperation({ summary: 'Documents with an indexing status, newest first, a page at a time (cursor)' })
  @ApiOkResponse({ type: DocumentPageDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Unknown status, invalid limit or cursor' })
  async byStatus(
    @Param('status') status: string,
    @Query() query: DocumentPageQueryDto,
  ): Promise<DocumentPageDto> {
    return DocumentPageDto.of(
      await this.documents.pageByStatus(status, query.limit ?? DOCUMENT_PAGE_DEFAULT_LIMIT, query.cursor),
    );
  }

  @Get('documents/faultSource/:faultSource')
  @RequireApiKey('chat')
  @ApiOperation({ summary: 'Documents about a fault source, newest first, a page at a time (cursor)' })
  @ApiOkResponse({ type: DocumentPageDto })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: 'Invalid limit or cursor' })
  async byFaultSource(
    @Param('faultSource') faultSource: string,
    @Query() query: DocumentPageQueryDto,
  ): Promise<DocumentPageDto> {
    return DocumentPageDto.of(
      await this.documents.pageByFaultSource(
        faultSource,
        query.limit ?? DOCUMENT_PAGE_DEFAULT_LIMIT,
        query.cursor,
      ),
    );
  }

  @Get('documents/:docId')
  @RequireApiKey('chat')
  @ApiOkResponse({ type: DocumentDto })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such document' })
  async get(@Param('docId') docId: string): Promise<DocumentDto> {
    return DocumentDto.of(await this.documents.get(docId));
  }

  @Get('documents/:docId/chunks')
  @RequireApiKey('chat')
  @ApiOkResponse({
    type: DocumentContentDto,
    description: 'The document and the chunks the knowledge base searches',
  })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such document' })
  async chunks(@Param('docId') docId: string): Promise<DocumentContentDto> {
    const { document, chunks } = await this.documents.content(docId);
    return DocumentContentDto.of(document, chunks);
  }

  @Delete('documents/:docId')
  @RequireApiKey('knowledge_admin')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted from MySQL, disk and every instance’s index' })
  @ApiNotFoundResponse({ type: ApiErrorDto, description: 'No such document' })
  async delete(@Param('docId') docId: string): Promise<void> {
    await this.documents.delete(docId);
  }
}

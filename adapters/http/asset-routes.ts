import { z } from "zod";
import type { CompressedAsset } from "./compressed-asset.ts";
import { assetReply, route, type DocTag } from "./route.ts";

/** Where a page's files are served and how the reference names them: `${operationId}_${name}`, `${summary} ${name}`. */
export interface AssetFolder {
  path: string;
  operationId: string;
  tag: DocTag;
  summary: string;
}

/** One public, cacheable GET route per file a page loads, at `${folder.path}/${name}`, answered by `serve`. */
export const assetRoutes = <A extends { type: string }>(
  folder: AssetFolder,
  assets: Record<string, A>,
  serve: (name: string, asset: A) => CompressedAsset,
) =>
  Object.entries(assets).map(([name, asset]) =>
    route({
      method: "GET",
      path: `${folder.path}/${name}`,
      operationId: `${folder.operationId}_${name.replace(/\W/g, "_")}`,
      tag: folder.tag,
      summary: `${folder.summary} ${name}`,
      access: "public",
      output: {
        status: 200,
        description: "The file.",
        body: z.string(),
        mediaType: asset.type.split(";")[0] as string,
        cacheable: true,
      },
      handle: () => assetReply(serve(name, asset)),
    }),
  );

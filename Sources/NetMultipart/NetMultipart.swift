// NetMultipart: streamed multipart/form-data bodies arrive with issue 4. They will be built on
// `NetworkBodyStream` from NetCore, which is why this module already depends on it.
import NetCore
